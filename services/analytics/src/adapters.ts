import type { Logger } from '@shortener/chassis';
import type { AnalyticsConfig } from './config';
import { kafkaVisitSource } from './ingest/kafka-visit-source';
import { redisVisitNotifier } from './ingest/visit-notifier';
import type { AnalyticsAdapters } from './service';

/**
 * The distributed mode's adapters, from the configuration: visits from Kafka, notices of the
 * visits stored on Redis pub/sub.
 */
export function connectAdapters(config: AnalyticsConfig, logger: Logger): AnalyticsAdapters {
  return {
    visits: kafkaVisitSource(config, logger),
    notifier: redisVisitNotifier(config.REDIS_URL, logger),
  };
}
