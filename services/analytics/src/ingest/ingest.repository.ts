import { Inject, Injectable } from '@nestjs/common';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import type { AnalyticsConfig } from '../config';
import { boundIdleTransaction, connected } from '../visits/analytics-database';
import {
  boolArray,
  byteaArray,
  ELEMENT_TYPE,
  int4Array,
  int8Array,
  textArray,
  timestamptzArray,
  uuidArray,
} from '../visits/binary-arrays';
import { chunk } from '../visits/chunk';
import { lockLinks } from '../visits/link-locks';
import { ACCOUNT_ROLLUP_CTES } from '../visits/account-rollups';
import { DIMENSIONS, rollupsOf } from '../visits/rollups';
import {
  MONTHS_AHEAD,
  addMonths,
  createMonth,
  monthOf,
  oldestKept,
  type Transact,
} from '../visits/visit-partitions';

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
  /** The short link's utm_source, utm_medium, utm_campaign, when its request named them. */
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
}

export interface StoreOutcome {
  stored: number;
  /** Already stored before (a redelivery), so not counted again. */
  duplicates: number;
  /** Late events of deleted links, dropped. */
  ofDeletedLinks: number;
  /** The rows really inserted (not those already stored), once committed. */
  inserted: VisitRow[];
  /** The owner of each of their links that has one (as the account rollups read it). */
  owners: Map<string, string>;
}

/**
 * A chunk of visits (columns as binary arrays), each inserted unless `visit_ids` holds its
 * event id: a partitioned table's unique keys must hold the month, so exactly-once lives there.
 * Answers the count, and which ids only when some were stored before (one row, usually).
 */
const INSERT_VISITS = `
  WITH rows AS (
    SELECT * FROM unnest(
      $1::uuid[], $2::varchar[], $3::timestamptz[], $4::varchar[], $5::text[], $6::text[],
      $7::text[], $8::boolean[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[]
    ) AS t(id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country,
           utm_source, utm_medium, utm_campaign)
  ),
  fresh AS (
    INSERT INTO analytics.visit_ids (id) SELECT id FROM rows ON CONFLICT (id) DO NOTHING
    RETURNING id
  ),
  added AS (
    INSERT INTO analytics.visits
      (id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country,
       utm_source, utm_medium, utm_campaign)
    SELECT rows.* FROM rows JOIN fresh USING (id)
    RETURNING id
  )
  SELECT count(*)::int AS added, CASE WHEN count(*) < $14::int THEN array_agg(id::text) END AS ids
  FROM added`;

/** INSERT_VISITS's parameters for a chunk of rows. */
function visitParameters(piece: readonly VisitRow[]): unknown[] {
  return [
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
    textArray(piece, (row) => row.utmSource ?? null),
    textArray(piece, (row) => row.utmMedium ?? null),
    textArray(piece, (row) => row.utmCampaign ?? null),
    piece.length,
  ];
}

/**
 * One statement raises every rollup, breakdown, visitor-day and link count by the visits really
 * inserted, summed beforehand (rollupsOf), and the owners' of those links whose owner is known
 * (account-rollups.ts); hours and days from the epoch, dimensions by index in $17.
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
  ),${ACCOUNT_ROLLUP_CTES}
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
  ),
  counts AS (
    INSERT INTO analytics.link_stats AS stats (url_id, visit_count)
    SELECT * FROM unnest($15::varchar[], $16::bigint[])
    ON CONFLICT (url_id) DO UPDATE SET visit_count = stats.visit_count + EXCLUDED.visit_count
  )
  SELECT DISTINCT url_id, owner_id FROM owned_hours`;

/** ADD_ROLLUPS's parameters: what the visits given add (rollupsOf). */
function rollupParameters(rows: readonly VisitRow[]): unknown[] {
  const { hours, breakdowns, visitors, links } = rollupsOf(rows);
  const same = <T>(value: T) => value;
  return [
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
  ];
}

/**
 * A batch's statement parameters, made before its transaction (prepareVisits) for the usual
 * case: no row of a deleted link, none stored before. storeVisits uses them only then, and
 * makes its own otherwise, so they never change what is stored.
 */
export interface PreparedVisits {
  rows: readonly VisitRow[];
  chunkRows: number;
  /** INSERT_VISITS's, a chunk each. */
  chunks: { rows: readonly VisitRow[]; parameters: unknown[] }[];
  /** ADD_ROLLUPS's, for all the rows. */
  rollups: unknown[];
}

/** prepareVisits' chunks and rollups, letting the event loop turn between them. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Ingest's writes to the analytics schema: the visits with their rollups, and the day keys. */
@Injectable()
export class IngestRepository {
  /** Months whose partition this instance has seen exist or made (epoch milliseconds). */
  private readonly months = new Set<number>();

  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(SERVICE_CONFIG)
    private readonly config: Pick<AnalyticsConfig, 'VISIT_RETENTION_MONTHS'>,
  ) {}

  /**
   * Makes the months' partitions a batch needs (late months and those ahead); months past the
   * retention or too far ahead get none, so their visits are refused and dead-lettered, never lost.
   */
  private async ensureMonths(rows: readonly VisitRow[]): Promise<void> {
    const now = new Date();
    const newest = addMonths(monthOf(now), MONTHS_AHEAD).getTime();
    const retention = this.config.VISIT_RETENTION_MONTHS;
    const oldest = retention === undefined ? -Infinity : oldestKept(now, retention).getTime();
    const wanted = new Set<number>();
    for (const row of rows) {
      const month = monthOf(row.timestamp).getTime();
      if (!this.months.has(month) && month >= oldest && month <= newest) wanted.add(month);
    }
    if (wanted.size === 0) return;
    const db = connected(this.database);
    const transact: Transact = (work) => db.transaction((manager) => work(manager));
    for (const month of wanted) {
      await createMonth(transact, new Date(month));
      this.months.add(month);
    }
  }

  /**
   * The statement parameters storeVisits would make for these rows, made beforehand (while
   * the batch before is being stored), letting the event loop turn between chunks.
   */
  async prepareVisits(rows: readonly VisitRow[], chunkRows: number): Promise<PreparedVisits> {
    const chunks: PreparedVisits['chunks'] = [];
    for (const piece of chunk(rows, chunkRows)) {
      chunks.push({ rows: piece, parameters: visitParameters(piece) });
      await nextTurn();
    }
    return { rows, chunkRows, chunks, rollups: rollupParameters(rows) };
  }

  /**
   * Stores a batch in one transaction: the new visits, then one statement raising every rollup
   * by what was really inserted, so a redelivered or retried batch adds nothing; answers the
   * owner of each link whose account it raised too (for the account's live notices).
   */
  async storeVisits(
    rows: readonly VisitRow[],
    chunkRows: number,
    prepared?: PreparedVisits,
  ): Promise<StoreOutcome> {
    if (rows.length === 0) {
      return { stored: 0, duplicates: 0, ofDeletedLinks: 0, inserted: [], owners: new Map() };
    }
    await this.ensureMonths(rows);
    return connected(this.database).transaction(async (manager) => {
      await boundIdleTransaction(manager);
      const urlIds = new Set(rows.map((row) => row.urlId));
      await lockLinks(manager, urlIds, 'shared');
      const deleted: { url_id: string }[] = await manager.query(
        'SELECT url_id FROM analytics.deleted_links WHERE url_id = ANY($1::varchar[])',
        [[...urlIds]],
      );
      const deletedIds = new Set(deleted.map((row) => row.url_id));
      const live = deletedIds.size === 0 ? rows : rows.filter((row) => !deletedIds.has(row.urlId));
      const ready =
        prepared !== undefined && prepared.rows === live && prepared.chunkRows === chunkRows
          ? prepared
          : undefined;

      const inserted: VisitRow[] = [];
      const pieces =
        ready?.chunks ??
        chunk(live, chunkRows).map((piece) => ({
          rows: piece,
          parameters: visitParameters(piece),
        }));
      for (const piece of pieces) {
        const [answer]: { added: number; ids: string[] | null }[] = await manager.query(
          INSERT_VISITS,
          piece.parameters,
        );
        if (answer!.added === piece.rows.length) {
          for (const row of piece.rows) inserted.push(row);
        } else {
          const ids = new Set(answer!.ids ?? []);
          for (const row of piece.rows) if (ids.has(row.id)) inserted.push(row);
        }
      }
      const owners = new Map<string, string>();
      if (inserted.length > 0) {
        const owned: Array<{ url_id: string; owner_id: string }> = await manager.query(
          ADD_ROLLUPS,
          ready !== undefined && inserted.length === live.length
            ? ready.rollups
            : rollupParameters(inserted),
        );
        for (const row of owned) owners.set(row.url_id, row.owner_id);
      }
      return {
        stored: inserted.length,
        duplicates: live.length - inserted.length,
        ofDeletedLinks: rows.length - live.length,
        inserted,
        owners,
      };
    });
  }

  /** Stores the offered key of each day that has none yet; answers each day's key. */
  async keysFor(offered: ReadonlyMap<string, Buffer>): Promise<Map<string, Buffer>> {
    const days = [...offered.keys()];
    await connected(this.database).query(
      `INSERT INTO analytics.visitor_keys (day, key)
       SELECT * FROM unnest($1::date[], $2::bytea[]) ON CONFLICT (day) DO NOTHING`,
      [days, days.map((day) => offered.get(day))],
    );
    const rows: { day: string; key: Buffer }[] = await connected(this.database).query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, key FROM analytics.visitor_keys
       WHERE day = ANY($1::date[])`,
      [days],
    );
    return new Map(rows.map((row) => [row.day, row.key]));
  }
}
