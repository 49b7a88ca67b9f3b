import type { Logger } from 'pino';
import type { IngestMetrics } from './ingest.metrics';
import type { PreparedBatch, Incoming, Unstored } from './visit-batch';

/**
 * The one way into the store, for every source. `ingest` stores a batch and returns the events
 * that cannot be stored for their data (failed the schema, or refused by PostgreSQL), each
 * with its origin and reason; it throws when storing failed for any other reason (an outage),
 * and then the source offers the whole batch again: events already stored are skipped by id.
 */
export interface VisitSink {
  ingest<Origin>(incoming: readonly Incoming<Origin>[]): Promise<Unstored<Origin>[]>;
  /**
   * ingest in two steps, for a source that prepares a batch while the one before is stored:
   * `prepare` parses, checks and enriches (no visit is written; it throws only in an outage),
   * `storePlan` stores what it made, as ingest does.
   */
  prepare<Origin>(incoming: readonly Incoming<Origin>[]): Promise<PreparedBatch<Origin>>;
  storePlan<Origin>(plan: PreparedBatch<Origin>): Promise<Unstored<Origin>[]>;
  readonly metrics: IngestMetrics;
  readonly logger: Logger;
}

/**
 * Where visit events come from: the `visits` topic (KafkaVisitSource), or the embedded mode's
 * in-process bus (InProcessVisitBus). The analytics service starts it with its sink once it
 * runs, and stops it at shutdown before its database closes.
 */
export interface VisitSource {
  start(sink: VisitSink): void;
  stop(): Promise<void>;
}
