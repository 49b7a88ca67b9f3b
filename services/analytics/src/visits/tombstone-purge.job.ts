import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { PeriodicOptions } from '@shortener/chassis';
import { PeriodicProvider, SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { AnalyticsConfig } from '../config';
import { VISITOR_KEY_RETENTION_DAYS } from '../ingest/visitors';
import { PurgesRepository } from './purges.repository';
import { PartitionsRepository } from './partitions.repository';

/**
 * A periodic round: tombstones past the retention (they only need to outlive events in flight),
 * short-lived stats rows, and the visits' monthly partitions (made ahead, dropped past retention).
 */
@Injectable()
export class TombstonePurgeJob extends PeriodicProvider {
  constructor(
    @Inject(PurgesRepository) private readonly purges: PurgesRepository,
    @Inject(PartitionsRepository) private readonly partitions: PartitionsRepository,
    @Inject(SERVICE_CONFIG) private readonly config: AnalyticsConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected periodicJob(): PeriodicOptions {
    return {
      name: 'tombstone purge',
      everyMs: this.config.TOMBSTONE_PURGE_INTERVAL_MS,
      run: () => this.purge(),
      logger: this.logger,
    };
  }

  private async purge(): Promise<void> {
    const months = await this.partitions.maintain(this.config.VISIT_RETENTION_MONTHS);
    if (months.created.length > 0 || months.dropped.length > 0) {
      this.logger.info(months, 'visit partitions made ahead and dropped past retention');
    }
    const purged = await this.purges.purgeTombstones(this.config.TOMBSTONE_RETENTION_DAYS);
    if (purged > 0) this.logger.info({ purged }, 'old tombstones purged');
    const expired = await this.purges.purgeShortLived(VISITOR_KEY_RETENTION_DAYS);
    if (expired.hours > 0 || expired.keys > 0) {
      this.logger.info(expired, 'old hourly breakdowns and visitor keys purged');
    }
  }
}
