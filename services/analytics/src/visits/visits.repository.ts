import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { isShortCode, type Visit } from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import {
  boolArray,
  byteaArray,
  ELEMENT_TYPE,
  int4Array,
  int8Array,
  textArray,
  timestamptzArray,
  uuidArray,
} from './binary-arrays';
import { chunk } from './chunk';
import { DIMENSIONS, rollupsOf } from './rollups';
import type { VisitCursor } from './visit-cursor';

/** One visit as it is stored: the event, its User-Agent parsed, its IP as configured. */
export interface VisitRow {
  id: string;
  urlId: string;
  /** The event's timestamp, milliseconds since the epoch. */
  timestamp: number;
  ipAddress: string;
  platform: string;
  browser: string;
  referrer: string | null;
  bot: boolean;
  /** desktop, mobile, tablet, bot or other. */
  device: string;
  /** ISO 3166-1 alpha-2, ZZ when unknown. */
  country: string;
  /** For the referrers breakdown: the referring host, (direct) or (unknown). */
  referrerHost: string;
  /** The day's keyed hash of the visitor's (IP, User-Agent): unique visitors. */
  visitor: Buffer;
}

export interface StoreOutcome {
  stored: number;
  /** Already stored before (a redelivery), so not counted again. */
  duplicates: number;
  /** Late events of deleted links, dropped. */
  ofDeletedLinks: number;
  /** The rows really inserted (not those already stored), once committed. */
  inserted: VisitRow[];
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

/**
 * A chunk of visits, each inserted unless already stored (a redelivery): answers those inserted.
 * Each column comes as one array in PostgreSQL's binary format (binary-arrays.ts), as do the
 * rollups' below.
 */
const INSERT_VISITS = `
  INSERT INTO analytics.visits
    (id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country)
  SELECT * FROM unnest(
    $1::uuid[], $2::varchar[], $3::timestamptz[], $4::varchar[], $5::text[], $6::text[],
    $7::text[], $8::boolean[], $9::text[], $10::text[]
  )
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;

/**
 * One statement raises everything counted from the visits a transaction really inserted,
 * summed beforehand (rollupsOf): the hourly rollups, the daily breakdowns (the hourly ones
 * summed per day), the hourly breakdowns of the last two days, the visitor-days and the
 * per-link counts. Hours and days come counted from the epoch, dimensions as their index in
 * $17.
 */
const ADD_ROLLUPS = `
  WITH hours AS (
    INSERT INTO analytics.visit_hours AS h (url_id, hour, visits, humans, bots)
    SELECT url_id, to_timestamp(hour * 3600), visits, humans, bots
    FROM unnest($1::varchar[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[])
      AS t(url_id, hour, visits, humans, bots)
    ON CONFLICT (url_id, hour) DO UPDATE SET
      visits = h.visits + EXCLUDED.visits,
      humans = h.humans + EXCLUDED.humans,
      bots = h.bots + EXCLUDED.bots
  ),
  breakdowns AS (
    SELECT url_id, to_timestamp(hour * 3600) AS hour, ($17::text[])[dimension + 1] AS dimension,
           value, visits
    FROM unnest($6::varchar[], $7::bigint[], $8::int[], $9::text[], $10::bigint[])
      AS t(url_id, hour, dimension, value, visits)
  ),
  days AS (
    INSERT INTO analytics.visit_breakdowns AS b (url_id, day, dimension, value, visits)
    SELECT url_id, (hour AT TIME ZONE 'UTC')::date AS day, dimension, value, sum(visits)
    FROM breakdowns GROUP BY url_id, day, dimension, value
    ORDER BY url_id, day, dimension, value
    ON CONFLICT (url_id, day, dimension, value) DO UPDATE SET visits = b.visits + EXCLUDED.visits
  ),
  recent AS (
    INSERT INTO analytics.visit_breakdown_hours AS b (url_id, hour, dimension, value, visits)
    SELECT url_id, hour, dimension, value, visits FROM breakdowns
    WHERE hour >= now() - interval '2 days'
    ON CONFLICT (url_id, hour, dimension, value) DO UPDATE SET visits = b.visits + EXCLUDED.visits
  ),
  visitors AS (
    INSERT INTO analytics.visitor_days AS v (url_id, day, visitor, last_seen)
    SELECT url_id, date '1970-01-01' + day, visitor, last_seen
    FROM unnest($11::varchar[], $12::int[], $13::bytea[], $14::timestamptz[])
      AS t(url_id, day, visitor, last_seen)
    ON CONFLICT (url_id, day, visitor) DO UPDATE SET last_seen = EXCLUDED.last_seen
      WHERE v.last_seen < EXCLUDED.last_seen
  )
  INSERT INTO analytics.link_stats AS stats (url_id, visit_count)
  SELECT * FROM unnest($15::varchar[], $16::bigint[])
  ON CONFLICT (url_id) DO UPDATE SET visit_count = stats.visit_count + EXCLUDED.visit_count`;

/** Days a visitor key is kept after its day; a later event of that day gets a new key. */
export const VISITOR_KEY_RETENTION_DAYS = 7;

/** What is counted of a link beside its visits, deleted with it. */
const LINK_TABLES = [
  'link_stats',
  'visit_hours',
  'visit_breakdowns',
  'visit_breakdown_hours',
  'visitor_days',
];

/** Rows deleted per statement when a link's visits go, so no transaction runs for long. */
const DELETE_SLICE = 10_000;

/** The analytics schema: visits, per-link counts and the tombstones of deleted links. */
@Injectable()
export class VisitsRepository {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  /**
   * Stores a batch in one transaction: multi-row inserts (a chunk each) that skip events
   * already stored, then one statement raising the rollups, breakdowns, visitor-days and
   * per-link counts by what was really inserted, summed in memory (a redelivered batch adds
   * nothing anywhere). Either all of it commits or none, so a retry of the same batch is
   * always safe.
   */
  async storeVisits(rows: readonly VisitRow[], chunkRows: number): Promise<StoreOutcome> {
    if (rows.length === 0) return { stored: 0, duplicates: 0, ofDeletedLinks: 0, inserted: [] };
    return this.db().transaction(async (manager) => {
      const urlIds = new Set(rows.map((row) => row.urlId));
      await this.lockLinks(manager, urlIds, 'shared');
      const deleted: { url_id: string }[] = await manager.query(
        'SELECT url_id FROM analytics.deleted_links WHERE url_id = ANY($1::varchar[])',
        [[...urlIds]],
      );
      const deletedIds = new Set(deleted.map((row) => row.url_id));
      const live = deletedIds.size === 0 ? rows : rows.filter((row) => !deletedIds.has(row.urlId));

      const inserted: VisitRow[] = [];
      for (const piece of chunk(live, chunkRows)) {
        const fresh: { id: string }[] = await manager.query(INSERT_VISITS, [
          uuidArray(piece, (row) => row.id),
          textArray(piece, (row) => row.urlId, ELEMENT_TYPE.varchar),
          timestamptzArray(piece, (row) => row.timestamp),
          textArray(piece, (row) => row.ipAddress, ELEMENT_TYPE.varchar),
          textArray(piece, (row) => row.platform),
          textArray(piece, (row) => row.browser),
          textArray(piece, (row) => row.referrer),
          boolArray(piece, (row) => row.bot),
          textArray(piece, (row) => row.device),
          textArray(piece, (row) => row.country),
        ]);
        const ids = new Set(fresh.map((row) => row.id));
        for (const row of piece) if (ids.has(row.id)) inserted.push(row);
      }
      if (inserted.length > 0) {
        const { hours, breakdowns, visitors, links } = rollupsOf(inserted);
        const same = <T>(value: T) => value;
        await manager.query(ADD_ROLLUPS, [
          textArray(hours.urlIds, same, ELEMENT_TYPE.varchar),
          int8Array(hours.hours, same),
          int8Array(hours.visits, same),
          int8Array(hours.humans, same),
          int8Array(hours.bots, same),
          textArray(breakdowns.urlIds, same, ELEMENT_TYPE.varchar),
          int8Array(breakdowns.hours, same),
          int4Array(breakdowns.dimensions, same),
          textArray(breakdowns.values, same),
          int8Array(breakdowns.visits, same),
          textArray(visitors.urlIds, same, ELEMENT_TYPE.varchar),
          int4Array(visitors.days, same),
          byteaArray(visitors.visitors, same),
          timestamptzArray(visitors.lastSeen, same),
          textArray(links.urlIds, same, ELEMENT_TYPE.varchar),
          int8Array(links.visits, same),
          [...DIMENSIONS],
        ]);
      }
      return {
        stored: inserted.length,
        duplicates: live.length - inserted.length,
        ofDeletedLinks: rows.length - live.length,
        inserted,
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
      for (const table of LINK_TABLES) {
        await manager.query(`DELETE FROM analytics.${table} WHERE url_id = ANY($1::varchar[])`, [
          links,
        ]);
      }
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

  /** Stores the offered key of each day that has none yet; answers each day's key. */
  async keysFor(offered: ReadonlyMap<string, Buffer>): Promise<Map<string, Buffer>> {
    const days = [...offered.keys()];
    await this.db().query(
      `INSERT INTO analytics.visitor_keys (day, key)
       SELECT * FROM unnest($1::date[], $2::bytea[]) ON CONFLICT (day) DO NOTHING`,
      [days, days.map((day) => offered.get(day))],
    );
    const rows: { day: string; key: Buffer }[] = await this.db().query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, key FROM analytics.visitor_keys
       WHERE day = ANY($1::date[])`,
      [days],
    );
    return new Map(rows.map((row) => [row.day, row.key]));
  }

  /**
   * What is only kept for a while goes: hourly breakdowns older than two days (the 24-hour
   * range needs one), visitor keys a week after their day. Returns how many rows of each.
   */
  async purgeShortLived(keyRetentionDays: number): Promise<{ hours: number; keys: number }> {
    const [hours]: { purged: number }[] = await this.db().query(
      `WITH gone AS (
         DELETE FROM analytics.visit_breakdown_hours WHERE hour < now() - interval '2 days'
         RETURNING 1
       )
       SELECT count(*)::int AS purged FROM gone`,
    );
    const [keys]: { purged: number }[] = await this.db().query(
      `WITH gone AS (
         DELETE FROM analytics.visitor_keys
         WHERE day < (now() AT TIME ZONE 'UTC')::date - $1::int
         RETURNING 1
       )
       SELECT count(*)::int AS purged FROM gone`,
      [keyRetentionDays],
    );
    return { hours: hours?.purged ?? 0, keys: keys?.purged ?? 0 };
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
