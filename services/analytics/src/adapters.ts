import { adapterConnector, type Adapter } from '@shortener/chassis';
import type { AnalyticsConfig } from './config';
import { kafkaVisitSource } from './ingest/kafka-visit-source';
import { redisVisitNotifier, type VisitNotifier } from './ingest/visit-notifier';
import type { VisitSource } from './ingest/visit-source';

/**
 * What the analytics service talks to beyond PostgreSQL: where visits come from, and who is
 * told of the visits stored (the gateway's live streams). Without Kafka the stats are served
 * as stored so far, and the consumer catches up once the broker is back.
 */
export interface AnalyticsAdapters {
  visits: Adapter<VisitSource>;
  notifier: Adapter<VisitNotifier>;
}

/**
 * The distributed mode's adapters (but those given), from the configuration: visits from
 * Kafka, notices of the visits stored on Redis pub/sub.
 */
export const connectAdapters = adapterConnector<AnalyticsConfig, AnalyticsAdapters>(
  (config, logger) => ({
    visits: () => kafkaVisitSource(config, logger),
    notifier: () => redisVisitNotifier(config.REDIS_URL, logger),
  }),
);
