import type { Logger } from '@shortener/chassis';
import type { AnalyticsConfig } from './config';
import { kafkaVisitSource } from './ingest/kafka-visit-source';
import type { AnalyticsAdapters } from './service';

/** The distributed mode's adapters, from the configuration: visits from Kafka. */
export function connectAdapters(config: AnalyticsConfig, logger: Logger): AnalyticsAdapters {
  return { visits: kafkaVisitSource(config, logger) };
}
