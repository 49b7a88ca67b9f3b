import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { AnalyticsConfig } from '../config';
import { VisitsRepository } from './visits.repository';

/**
 * Tombstones only need to outlive the events still on their way for a deleted link; past the
 * retention they go, so the table does not grow with every link ever deleted.
 */
@Injectable()
export class TombstonePurgeJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    @Inject(VisitsRepository) private readonly visits: VisitsRepository,
    @Inject(SERVICE_CONFIG) private readonly config: AnalyticsConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.runOnce(), this.config.TOMBSTONE_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async runOnce(): Promise<void> {
    if (this.running) return;
    this.running = this.visits
      .purgeTombstones(this.config.TOMBSTONE_RETENTION_DAYS)
      .then((purged) => {
        if (purged > 0) this.logger.info({ purged }, 'old tombstones purged');
      })
      .catch((error: unknown) =>
        this.logger.warn({ err: String(error) }, 'tombstone purge failed; will retry'),
      )
      .finally(() => (this.running = undefined));
    await this.running;
  }
}
