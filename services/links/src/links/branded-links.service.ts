import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { SERVICE_LOGGER } from '@shortener/chassis-nest';
import { LINK_CACHE, type LinkCache } from './link-cache.provider';
import { cachedLink, cacheKeyOf, VERSIONED_COLUMNS, type VersionedRow } from './link-rows';

/**
 * A domain's links as its delete and its restore change them: each link's version is raised
 * (an UPDATE that changes nothing else: the trigger raises it), then its entry is marked gone
 * or written again at that version, broadcast to every redirect instance, so no entry read
 * before the change can be refilled over it.
 */
@Injectable()
export class BrandedLinksService {
  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(LINK_CACHE) private readonly cache: LinkCache,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /** After the domain's delete: its live links stop redirecting at once. */
  async stop(host: string): Promise<void> {
    const rows = await this.touch(host);
    await this.tell(host, true, () =>
      Promise.all(rows.map((row) => this.cache.delete(cacheKeyOf(row), Number(row.version)))),
    );
  }

  /** After the domain's restore: its live links redirect again (a deleted link stays gone). */
  async resume(host: string): Promise<void> {
    const rows = await this.touch(host);
    await this.tell(host, false, () =>
      Promise.all(
        rows
          .filter((row) => row.served !== false)
          .map((row) => this.cache.replace(cacheKeyOf(row), cachedLink(row))),
      ),
    );
  }

  /**
   * Tells the cache what it missed: each domain changed since the cache was last told of it
   * (a delete or restore it could not be told of), as the domain is now. Answers how many.
   */
  async tellUntold(): Promise<number> {
    const rows: Array<{ host: string; deleted: boolean }> = await this.database.dataSource.query(
      `SELECT host, deleted_at IS NOT NULL AS deleted FROM links.domains
       WHERE NOT cache_told ORDER BY host LIMIT 100`,
    );
    for (const { host, deleted } of rows) {
      if (deleted) await this.stop(host);
      else await this.resume(host);
    }
    return rows.length;
  }

  private touch(host: string): Promise<VersionedRow[]> {
    return this.database.dataSource.query<VersionedRow[]>(
      // In a WITH, so the answer is the rows (TypeORM answers a bare UPDATE with a count too).
      `WITH touched AS (
         UPDATE links.links SET version = version
         WHERE domain = $1 AND deleted_at IS NULL AND expires_at > now()
         RETURNING ${VERSIONED_COLUMNS}
       )
       SELECT * FROM touched`,
      [host],
    );
  }

  /**
   * A cache that cannot be told is logged, not answered: the domain's change is made and
   * stays untold (cache_told false) until a later round of tellUntold tells it. Told, the
   * domain is marked so only while it is still in the state told (`deleted`): a change made
   * meanwhile is told by its own call.
   */
  private async tell(host: string, deleted: boolean, told: () => Promise<unknown>): Promise<void> {
    try {
      await told();
    } catch (error) {
      this.logger.warn(
        { err: String(error), host },
        "cache not told of a domain's links yet; will retry",
      );
      return;
    }
    await this.database.dataSource.query(
      `UPDATE links.domains SET cache_told = true
       WHERE host = $1 AND NOT cache_told AND (deleted_at IS NOT NULL) = $2`,
      [host, deleted],
    );
  }
}
