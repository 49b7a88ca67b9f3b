import { Counter, Gauge, Histogram } from 'prom-client';
import { startAtZero, type ServiceMetrics } from '@shortener/chassis';

export const INGEST_METRICS = Symbol('INGEST_METRICS');

export interface IngestMetrics {
  stored: Counter;
  duplicates: Counter;
  ofDeletedLinks: Counter;
  deadLettered: Counter;
  refusedByDatabase: Counter;
  batchDuration: Histogram;
  retries: Counter<'step'>;
  /** Set by the Kafka source's lag reader (ConsumerLagReader); no series in the embedded mode. */
  consumerLag: Gauge<'topic' | 'partition'>;
  /** Its age: seconds since the oldest event not committed was first seen on its partition. */
  consumerLagSeconds: Gauge<'topic' | 'partition'>;
}

/** What an operator watches of the consumer, on the service's registry. */
export function createIngestMetrics({ registry }: ServiceMetrics): IngestMetrics {
  const registers = [registry];
  const retries = new Counter({
    name: 'analytics_batch_retries_total',
    help: 'Batches retried after a failure, by the step that failed (database, dead-letter)',
    labelNames: ['step'] as const,
    registers,
  });
  startAtZero(retries, 'step', ['database', 'dead-letter']);
  return {
    stored: new Counter({
      name: 'analytics_visits_stored_total',
      help: 'Visits stored',
      registers,
    }),
    duplicates: new Counter({
      name: 'analytics_visits_duplicate_total',
      help: 'Redelivered visit events skipped because they were already stored',
      registers,
    }),
    ofDeletedLinks: new Counter({
      name: 'analytics_visits_deleted_link_total',
      help: 'Late visit events of deleted links, dropped',
      registers,
    }),
    deadLettered: new Counter({
      name: 'analytics_visits_dead_lettered_total',
      help: 'Messages that failed the visit event schema or that PostgreSQL refused, sent to the dead-letter topic (dropped in the embedded mode)',
      registers,
    }),
    refusedByDatabase: new Counter({
      name: 'analytics_visits_refused_by_database_total',
      help: 'Visit events that passed the schema but PostgreSQL refused for their data, found by splitting their batch',
      registers,
    }),
    batchDuration: new Histogram({
      name: 'analytics_batch_duration_seconds',
      help: 'Time to store a fetched batch and commit its offset, retries included',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    retries,
    consumerLag: new Gauge({
      name: 'analytics_consumer_lag',
      help: "Visit events not yet committed by the consumer group, per partition (the topic's high watermark less the group's committed offset), read every CONSUMER_LAG_INTERVAL_MS",
      labelNames: ['topic', 'partition'] as const,
      registers,
    }),
    consumerLagSeconds: new Gauge({
      name: 'analytics_consumer_lag_seconds',
      help: "Age of the oldest visit event the consumer group has not committed, per partition: the time since this instance's lag reader first saw it (0 when none waits; counted from the reader's start for older ones)",
      labelNames: ['topic', 'partition'] as const,
      registers,
    }),
  };
}
