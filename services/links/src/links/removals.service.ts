import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { internalApi } from '@shortener/contracts';
import { InternalClient, periodic, type PeriodicJob } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { LinksConfig } from '../config';
import { LINK_CACHE, type LinkCache } from './link-cache.provider';

const BATCH = 500;

/**
 * What follows a link's removal, driven by the removed_links outbox so nothing is lost when
 * Redis or the analytics service is away: the cache entry is marked gone (redirects stop at
 * once) and the link's visits are deleted. Also purges links expired past the retention.
 */
@Injectable()
export class RemovalsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly analytics: InternalClient;
  private job: PeriodicJob | undefined;
  private lastPurge = Date.now();

  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(LINK_CACHE) private readonly cache: LinkCache,
    @Inject(SERVICE_CONFIG) private readonly config: LinksConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.analytics = new InternalClient(
      'analytics',
      config.ANALYTICS_URL,
      config.INTERNAL_API_SECRET,
    );
  }

  onApplicationBootstrap(): void {
    // One job for both rounds, so a purge (which settles too) and a retry never overlap.
    const { REMOVALS_INTERVAL_MS, PURGE_INTERVAL_MS } = this.config;
    this.job = periodic({
      name: 'removals',
      everyMs: Math.min(REMOVALS_INTERVAL_MS, PURGE_INTERVAL_MS),
      run: async () => {
        if (Date.now() - this.lastPurge >= PURGE_INTERVAL_MS) {
          this.lastPurge = Date.now();
          await this.purgeExpired();
        } else {
          await this.settlePending();
        }
      },
      logger: this.logger,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job?.stop();
  }

  /**
   * Stops redirects of just-removed links at once (awaited), then deletes their visits in
   * the background; whatever fails stays in the outbox for the next round.
   */
  async settle(codes: string[]): Promise<void> {
    try {
      await Promise.all(codes.map((code) => this.cache.delete(code)));
    } catch (error) {
      this.logger.warn({ err: String(error), codes }, 'cache not told of removal yet; will retry');
      return;
    }
    void this.forgetVisits(codes);
  }

  /** Links expired longer ago than the retention go, with their visits. */
  async purgeExpired(): Promise<number> {
    if (!this.database.isConnected) return 0;
    let purged = 0;
    for (;;) {
      const rows: { code: string }[] = await this.database.dataSource.query(
        `WITH gone AS (
           DELETE FROM links.links WHERE code IN (
             SELECT code FROM links.links
             WHERE expires_at < now() - make_interval(days => $1)
             LIMIT $2
           ) RETURNING code
         )
         INSERT INTO links.removed_links (code, removed_at)
         SELECT code, now() FROM gone
         ON CONFLICT (code) DO UPDATE SET removed_at = EXCLUDED.removed_at
         RETURNING code`,
        [this.config.LINK_RETENTION_DAYS, BATCH],
      );
      purged += rows.length;
      if (rows.length < BATCH) break;
    }
    if (purged > 0) this.logger.info({ purged }, 'expired links purged');
    await this.settlePending();
    return purged;
  }

  /** Retries every removal whose follow-up has not been confirmed. */
  async settlePending(): Promise<void> {
    if (!this.database.isConnected) return;
    for (;;) {
      const rows: { code: string }[] = await this.database.dataSource.query(
        'SELECT code FROM links.removed_links ORDER BY removed_at LIMIT $1',
        [BATCH],
      );
      if (rows.length === 0) return;
      const codes = rows.map((row) => row.code);
      await Promise.all(codes.map((code) => this.cache.delete(code)));
      if (!(await this.forgetVisits(codes))) return;
      if (rows.length < BATCH) return;
    }
  }

  private async forgetVisits(codes: string[]): Promise<boolean> {
    try {
      // Any status but 200 { deleted } throws: the codes stay in the outbox.
      await this.analytics.call(internalApi.deleteVisits, { body: { codes } });
      await this.database.dataSource.query(
        'DELETE FROM links.removed_links WHERE code = ANY($1::varchar[])',
        [codes],
      );
      return true;
    } catch (error) {
      this.logger.warn(
        { err: String(error), count: codes.length },
        'visits not deleted yet; will retry',
      );
      return false;
    }
  }
}
