import type { ReadinessCheck } from '@shortener/chassis';
import { visitRecordOf, type EncodedVisits } from '@shortener/contracts';
import type { VisitSink, VisitSource } from './visit-source';

/**
 * The embedded mode's `visits` topic: a publish resolves once stored, so the redirect's queue
 * retries as with Kafka; no dead-letter topic, so data refused is logged, counted and dropped.
 */
export class InProcessVisitBus implements VisitSource {
  private sink: VisitSink | undefined;

  start(sink: VisitSink): void {
    this.sink = sink;
  }

  stop(): Promise<void> {
    this.sink = undefined;
    return Promise.resolve();
  }

  /**
   * The redirect's side: stores the visits, or throws (and nothing is lost). They come as the
   * redirect queued them, and are read as records, exactly as from the topic.
   */
  async publish(batch: readonly EncodedVisits[]): Promise<void> {
    const sink = this.sink;
    if (!sink) throw new Error('no visit consumer is running yet');
    const unstored = await sink.ingest(
      batch.map((visits) => ({ value: visitRecordOf(visits), origin: 'in process' })),
    );
    for (const { part, reason } of unstored) {
      sink.metrics.deadLettered.inc();
      sink.logger.warn({ event: part?.event, reason }, 'visit event dropped');
    }
  }

  /** Ready while the analytics service consumes (its side, and the redirect's, of /readyz). */
  readiness(name: string): ReadinessCheck {
    return {
      name,
      check: () =>
        this.sink ? Promise.resolve() : Promise.reject(new Error('no visit consumer running')),
    };
  }
}
