import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DELETED_CODE_KEPT_DAYS, internalApi } from '@shortener/contracts';
import { PURGED_VERSION } from '@shortener/link-cache';
import { InternalClient, type PeriodicOptions } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { PeriodicProvider, SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { LinksConfig } from '../config';
import { LINK_CACHE, type LinkCache } from './link-cache.provider';
import { cachedLink, cacheKeyOf, VERSIONED_COLUMNS, type VersionedRow } from './link-rows';
import { retireRemoved } from './retired-codes';

const BATCH = 500;

/**
 * What follows a link's removal, driven by the removed_links outbox so nothing is lost when
 * Redis or the analytics service is away: the cache entry is marked gone (redirects stop at
 * once), and once the removal is due (`purge_after`: a deleted link's undo window) the link
 * and its visits are deleted. Also purges links expired past the retention.
 */
@Injectable()
export class RemovalsService extends PeriodicProvider {
  private readonly analytics: InternalClient;
  private lastPurge = Date.now();

  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(LINK_CACHE) private readonly cache: LinkCache,
    @Inject(SERVICE_CONFIG) private readonly config: LinksConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
    this.analytics = new InternalClient(
      'analytics',
      config.ANALYTICS_URL,
      config.INTERNAL_API_SECRET,
    );
  }

  protected periodicJob(): PeriodicOptions {
    // One job for both rounds, so a purge (which settles too) and a retry never overlap.
    const { REMOVALS_INTERVAL_MS, PURGE_INTERVAL_MS } = this.config;
    return {
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
    };
  }

  /**
   * Stops redirects of just-deleted links at once (awaited), each marked gone under its cache
   * key (its code, or its branded key) at the version its deletion gave it; their purge waits for its time. A cache that cannot be told is told
   * by a later round.
   */
  async stopRedirects(
    deleted: Array<{ code: string; version: number; key: string }>,
  ): Promise<void> {
    const codes = deleted.map(({ code }) => code);
    try {
      await Promise.all(deleted.map(({ key, version }) => this.cache.delete(key, version)));
    } catch (error) {
      this.logger.warn({ err: String(error), codes }, 'cache not told of removal yet; will retry');
      return;
    }
    await this.database.dataSource.query(
      'UPDATE links.removed_links SET cache_told = true WHERE code = ANY($1::varchar[])',
      [codes],
    );
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
         ${retireRemoved('now()')}`,
        [this.config.LINK_RETENTION_DAYS, BATCH],
      );
      purged += rows.length;
      if (rows.length < BATCH) break;
    }
    if (purged > 0) this.logger.info({ purged }, 'expired links purged');
    await this.database.dataSource.query(
      'DELETE FROM links.retired_codes WHERE retired_at < now() - make_interval(days => $1)',
      [DELETED_CODE_KEPT_DAYS],
    );
    await this.settlePending();
    return purged;
  }

  /**
   * Tells the cache of the deletions it missed, then settles every removal that is due: the
   * link deleted for good (a deleted link's undo window is over), the cache told again, the
   * visits deleted; whatever fails stays in the outbox for the next round.
   */
  async settlePending(): Promise<void> {
    if (!this.database.isConnected) return;
    await this.retryStopRedirects();
    for (;;) {
      const rows: { code: string }[] = await this.database.dataSource.query(
        `SELECT code FROM links.removed_links WHERE purge_after <= now()
         ORDER BY removed_at LIMIT $1`,
        [BATCH],
      );
      if (rows.length === 0) return;
      const due = rows.map((row) => row.code);
      const purged: { code: string; domain: string | null; slug: string | null }[] =
        await this.database.dataSource.query(
          // In a WITH, so the answer is the rows (TypeORM answers a bare DELETE with a count too).
          `WITH purged AS (
             DELETE FROM links.links WHERE code = ANY($1::varchar[]) AND deleted_at IS NOT NULL
             RETURNING code, domain, slug
           )
           SELECT * FROM purged`,
          [due],
        );
      // A branded link's entry is under its domain's key: gone for good there too.
      const branded = purged.filter((row) => row.domain !== null).map(cacheKeyOf);
      // A link restored at the very end of its window (after the rows were read) stays.
      const live: { code: string }[] = await this.database.dataSource.query(
        'SELECT code FROM links.links WHERE code = ANY($1::varchar[])',
        [due],
      );
      const restored = new Set(live.map((row) => row.code));
      const codes = due.filter((code) => !restored.has(code));
      await Promise.all(
        [...codes, ...branded].map((key) => this.cache.delete(key, PURGED_VERSION)),
      );
      if (codes.length > 0 && !(await this.forgetVisits(codes))) return;
      if (rows.length < BATCH) return;
    }
  }

  /** Deleted links whose gone marker the cache did not take when they were deleted. */
  private async retryStopRedirects(): Promise<void> {
    const rows: { code: string; version: string; domain: string | null; slug: string | null }[] =
      await this.database.dataSource.query(
        `SELECT r.code, l.version, l.domain, l.slug
         FROM links.removed_links r JOIN links.links l USING (code)
         WHERE NOT r.cache_told AND r.purge_after > now()
         ORDER BY r.removed_at LIMIT $1`,
        [BATCH],
      );
    if (rows.length === 0) return;
    const codes = rows.map((row) => row.code);
    await this.stopRedirects(
      rows.map((row) => ({ code: row.code, version: Number(row.version), key: cacheKeyOf(row) })),
    );
    // One restored since the rows were read must not keep the gone marker just written.
    const restored: VersionedRow[] = await this.database.dataSource.query(
      `SELECT ${VERSIONED_COLUMNS} FROM links.links
       WHERE code = ANY($1::varchar[]) AND deleted_at IS NULL`,
      [codes],
    );
    for (const row of restored) {
      if (row.served !== false) await this.cache.replace(cacheKeyOf(row), cachedLink(row));
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
