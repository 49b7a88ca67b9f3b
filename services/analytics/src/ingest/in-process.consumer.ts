import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import type { VisitEvent } from '@shortener/contracts';
import { sharedVisitBus } from '@shortener/chassis';
import { SERVICE_LOGGER } from '@shortener/chassis-nest';
import { IngestService } from './ingest.service';
import { planEvents, unstorable } from './visit-batch';
import type { VisitSource } from './visit-source';

/**
 * The embedded mode's consumer: the redirect service in the same process hands over batches
 * that already passed the event schema, and its publish resolves only once they are stored,
 * so a failed batch stays in the redirect's queue and comes again, as with Kafka.
 */
@Injectable()
export class InProcessVisitsConsumer
  implements VisitSource, OnApplicationBootstrap, OnApplicationShutdown
{
  readonly name = 'visit bus';
  private unregister: (() => void) | undefined;

  constructor(
    @Inject(IngestService) private readonly ingest: IngestService,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.unregister = sharedVisitBus().consume((events) => this.store(events));
  }

  check(): Promise<void> {
    return this.unregister ? Promise.resolve() : Promise.reject(new Error('not consuming yet'));
  }

  onApplicationShutdown(): void {
    this.unregister?.();
    this.unregister = undefined;
  }

  private async store(events: VisitEvent[]): Promise<void> {
    const storable = events.filter((event) => {
      const reason = unstorable(event);
      if (reason === undefined) return true;
      // No dead-letter topic in this mode: the log is the record of what was dropped.
      this.ingest.metrics.deadLettered.inc();
      this.logger.warn({ event, reason }, 'visit event dropped');
      return false;
    });
    const { visits, repeated, sources } = planEvents(storable, this.ingest.enrich);
    // What PostgreSQL refuses for its data is dropped the same way; anything else throws, and
    // the redirect's queue offers the batch again.
    const refused = await this.ingest.storeIsolating(visits, repeated);
    for (const { index, reason } of refused) {
      this.ingest.metrics.deadLettered.inc();
      this.logger.warn({ event: storable[sources[index]!], reason }, 'visit event dropped');
    }
  }
}
