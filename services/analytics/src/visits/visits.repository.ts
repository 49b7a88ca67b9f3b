import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { isShortCode, type Visit } from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { chunk } from './chunk';
import type { VisitCursor } from './visit-cursor';

/** One visit as it is stored: the event, its User-Agent parsed, its IP as configured. */
export interface VisitRow {
  id: string;
  urlId: string;
  /** ISO 8601, the event's timestamp. */
  createdAt: string;
  ipAddress: string;
  platform: string;
  browser: string;
  referrer: string | null;
}

export interface StoreOutcome {
  stored: number;
  /** Already stored before (a redelivery), so not counted again. */
  duplicates: number;
  /** Late events of deleted links, dropped. */
  ofDeletedLinks: number;
}

export interface StoredVisit {
  visit: Visit;
  cursor: VisitCursor;
}

interface VisitRecord {
  id: string;
  created_at: Date;
  ip_address: string;
  platform: string;
  browser: string;
}

/**
 * Storing a link's visits and deleting them must not interleave, or a visit stored while the
 * link is deleted would survive it. Both take a transaction-scoped advisory lock per link,
 * shared for storing and exclusive for deleting; links are hashed into a fixed number of
 * locks so a batch of thousands of links takes at most that many. The two-key form keeps
 * these apart from the single-key locks the migrations take.
 */
const LOCK_SPACE = 0x616e6c74;
const LOCK_BUCKETS = 256;

function lockBuckets(urlIds: Iterable<string>): number[] {
  const buckets = new Set<number>();
  for (const urlId of urlIds) {
    let hash = 0x811c9dc5;
    for (let index = 0; index < urlId.length; index += 1) {
      hash = Math.imul(hash ^ urlId.charCodeAt(index), 0x01000193);
    }
    buckets.add((hash >>> 0) % LOCK_BUCKETS);
  }
  // One order everywhere, so two lockers never wait on each other in a cycle.
  return [...buckets].sort((a, b) => a - b);
}

const INSERT_VISITS = `
  WITH inserted AS (
    INSERT INTO analytics.visits
      (id, url_id, created_at, ip_address, platform, browser, referrer)
    SELECT * FROM unnest(
      $1::uuid[], $2::varchar[], $3::timestamptz[], $4::varchar[], $5::text[], $6::text[], $7::text[]
    )
    ON CONFLICT (id) DO NOTHING
    RETURNING url_id
  )
  SELECT url_id, count(*)::int AS stored FROM inserted GROUP BY url_id`;

const ADD_VISIT_COUNTS = `
  INSERT INTO analytics.link_stats AS stats (url_id, visit_count)
  SELECT * FROM unnest($1::varchar[], $2::bigint[])
  ON CONFLICT (url_id) DO UPDATE SET visit_count = stats.visit_count + EXCLUDED.visit_count`;

/** Rows deleted per statement when a link's visits go, so no transaction runs for long. */
const DELETE_SLICE = 10_000;

/** The analytics schema: visits, per-link counts and the tombstones of deleted links. */
@Injectable()
export class VisitsRepository {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  /**
   * Stores a batch in one transaction: multi-row inserts (a chunk each) that skip events
   * already stored, then the per-link counts raised by what was really inserted. Either all
   * of it commits or none, so a retry of the same batch is always safe.
   */
  async storeVisits(rows: readonly VisitRow[], chunkRows: number): Promise<StoreOutcome> {
    if (rows.length === 0) return { stored: 0, duplicates: 0, ofDeletedLinks: 0 };
    return this.db().transaction(async (manager) => {
      const urlIds = new Set(rows.map((row) => row.urlId));
      await this.lockLinks(manager, urlIds, 'shared');
      const deleted: { url_id: string }[] = await manager.query(
        'SELECT url_id FROM analytics.deleted_links WHERE url_id = ANY($1::varchar[])',
        [[...urlIds]],
      );
      const deletedIds = new Set(deleted.map((row) => row.url_id));
      const live = deletedIds.size === 0 ? rows : rows.filter((row) => !deletedIds.has(row.urlId));

      const perLink = new Map<string, number>();
      for (const piece of chunk(live, chunkRows)) {
        const counts: { url_id: string; stored: number }[] = await manager.query(INSERT_VISITS, [
          piece.map((row) => row.id),
          piece.map((row) => row.urlId),
          piece.map((row) => row.createdAt),
          piece.map((row) => row.ipAddress),
          piece.map((row) => row.platform),
          piece.map((row) => row.browser),
          piece.map((row) => row.referrer),
        ]);
        for (const { url_id, stored } of counts) {
          perLink.set(url_id, (perLink.get(url_id) ?? 0) + stored);
        }
      }
      if (perLink.size > 0) {
        const ordered = [...perLink.keys()].sort();
        await manager.query(ADD_VISIT_COUNTS, [ordered, ordered.map((id) => perLink.get(id))]);
      }
      let stored = 0;
      for (const count of perLink.values()) stored += count;
      return {
        stored,
        duplicates: live.length - stored,
        ofDeletedLinks: rows.length - live.length,
      };
    });
  }

  /** One page of a link's visits, newest first, after the cursor when there is one. */
  async page(code: string, limit: number, after: VisitCursor | null): Promise<StoredVisit[]> {
    const rows: VisitRecord[] = after
      ? await this.db().query(
          `SELECT id, created_at, ip_address, platform, browser FROM analytics.visits
           WHERE url_id = $1 AND (created_at, id) < ($3::timestamptz, $4::uuid)
           ORDER BY created_at DESC, id DESC LIMIT $2`,
          [code, limit, after.createdAt.toISOString(), after.id],
        )
      : await this.db().query(
          `SELECT id, created_at, ip_address, platform, browser FROM analytics.visits
           WHERE url_id = $1
           ORDER BY created_at DESC, id DESC LIMIT $2`,
          [code, limit],
        );
    return rows.map((row) => ({
      visit: {
        _id: row.id,
        createdAt: row.created_at.toISOString(),
        userAgent: { platform: row.platform, browser: row.browser },
        ipAddress: row.ip_address,
      },
      cursor: { createdAt: row.created_at, id: row.id },
    }));
  }

  /** Every asked code gets a count, 0 when it has no visits. */
  async counts(codes: readonly string[]): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const code of codes) counts[code] = 0;
    const asked = [...new Set(codes.filter(isShortCode))];
    if (asked.length === 0) return counts;
    const rows: { url_id: string; visit_count: string }[] = await this.db().query(
      'SELECT url_id, visit_count FROM analytics.link_stats WHERE url_id = ANY($1::varchar[])',
      [asked],
    );
    for (const row of rows) counts[row.url_id] = Number(row.visit_count);
    return counts;
  }

  /**
   * Forgets links: tombstones first (with their counts, under the exclusive link locks, so a
   * batch storing visits of them has either committed already or will see the tombstone),
   * then their visits in slices. Safe to repeat; returns how many visits were removed.
   */
  async deleteLinks(codes: readonly string[]): Promise<number> {
    const links = [...new Set(codes.filter(isShortCode))];
    if (links.length === 0) return 0;
    const db = this.db();
    await db.transaction(async (manager) => {
      await this.lockLinks(manager, links, 'exclusive');
      await manager.query(
        `INSERT INTO analytics.deleted_links (url_id, deleted_at)
         SELECT unnest($1::varchar[]), now()
         ON CONFLICT (url_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at`,
        [links],
      );
      await manager.query('DELETE FROM analytics.link_stats WHERE url_id = ANY($1::varchar[])', [
        links,
      ]);
    });
    let deleted = 0;
    for (;;) {
      const [row]: { removed: number }[] = await db.query(
        `WITH gone AS (
           DELETE FROM analytics.visits WHERE id IN (
             SELECT id FROM analytics.visits WHERE url_id = ANY($1::varchar[]) LIMIT $2
           ) RETURNING 1
         )
         SELECT count(*)::int AS removed FROM gone`,
        [links, DELETE_SLICE],
      );
      const removed = row?.removed ?? 0;
      deleted += removed;
      if (removed < DELETE_SLICE) return deleted;
    }
  }

  /** Tombstones older than the retention go; returns how many. */
  async purgeTombstones(retentionDays: number): Promise<number> {
    const [row]: { purged: number }[] = await this.db().query(
      `WITH gone AS (
         DELETE FROM analytics.deleted_links
         WHERE deleted_at < now() - make_interval(days => $1)
         RETURNING 1
       )
       SELECT count(*)::int AS purged FROM gone`,
      [retentionDays],
    );
    return row?.purged ?? 0;
  }

  private async lockLinks(
    manager: EntityManager,
    urlIds: Iterable<string>,
    mode: 'shared' | 'exclusive',
  ): Promise<void> {
    const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
    await manager.query(`SELECT ${lock}($1, bucket) FROM unnest($2::int[]) AS bucket`, [
      LOCK_SPACE,
      lockBuckets(urlIds),
    ]);
  }

  private db(): DataSource {
    if (!this.database.isConnected) throw new ServiceUnavailableException('Database unavailable');
    return this.database.dataSource;
  }
}
