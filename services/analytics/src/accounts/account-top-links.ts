import type { DataSource } from 'typeorm';
import { CUSTOM_RANGE, STATS_LIST_MAX } from '@shortener/contracts';
import { count, type Queryable } from '../stats/stats-reads';
import type { AccountWindow } from './account-window';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Where an account's links are counted in a window: by hour (24h and short periods) or day. */
interface LinkRows {
  table: 'account_breakdowns' | 'account_breakdown_hours';
  epoch: 'day_epoch' | 'hour_epoch';
  /** The bucket column compared with a time parameter. */
  at: (op: string, param: string) => string;
}

const HOURLY: LinkRows = {
  table: 'account_breakdown_hours',
  epoch: 'hour_epoch',
  at: (op, param) => `hour ${op} ${param}::timestamptz`,
};
const DAILY: LinkRows = {
  table: 'account_breakdowns',
  epoch: 'day_epoch',
  at: (op, param) => `day ${op} (${param}::timestamptz AT TIME ZONE 'UTC')::date`,
};

/**
 * A range's window cut at its current hour (24h) or day: the part before is summed once per
 * owner and range (account_top_links) while no past row changes (the owner's epoch, which the
 * migration's triggers raise); the current part is read each time.
 */
export interface LinksCut extends LinkRows {
  span: string;
  from: Date | null;
  until: Date;
  to: Date;
}

const rowsOf = (window: AccountWindow): LinkRows => (window.interval === 'hour' ? HOURLY : DAILY);

/** The cut of a range's window; null for a period (read whole, never kept). */
export function linksCut(window: AccountWindow): LinksCut | null {
  if (window.range === CUSTOM_RANGE) return null;
  const unit = window.interval === 'hour' ? HOUR_MS : DAY_MS;
  return {
    ...rowsOf(window),
    span: window.range,
    from: window.range === 'all' ? null : new Date(window.from),
    until: new Date(Math.floor(window.to / unit) * unit),
    to: new Date(window.to),
  };
}

const BUILT = (cut: LinksCut) => `
  SELECT 1 FROM analytics.account_top_links_built
  WHERE owner_id = $1 AND span = $2 AND until = $3
    AND epoch = coalesce(
      (SELECT ${cut.epoch} FROM analytics.account_link_epochs WHERE owner_id = $1), 0)`;

/**
 * Visits per link of the owner ($1) in the buckets from `from` (none: all) up to the bound,
 * as SQL whose parameters are pushed on `params`.
 */
function linkSums(
  rows: LinkRows,
  from: Date | null,
  upTo: { op: '<' | '<='; time: Date },
  params: unknown[],
): string {
  params.push(upTo.time);
  let where = `owner_id = $1 AND dimension = 'link' AND ${rows.at(upTo.op, `$${params.length}`)}`;
  if (from !== null) {
    params.push(from);
    where += ` AND ${rows.at('>=', `$${params.length}`)}`;
  }
  return `SELECT value AS url_id, sum(visits) AS visits FROM analytics.${rows.table}
          WHERE ${where} GROUP BY 1`;
}

/**
 * Sums the part of an owner's range before its current hour or day, unless it is summed
 * already at the owner's epoch (one builder at a time per owner and range). Each statement
 * sees what committed before it: the sums and the epoch they are kept at are read together.
 */
export async function keepPastLinks(db: DataSource, owner: string, cut: LinksCut): Promise<void> {
  await db.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `account-top-links:${owner}:${cut.span}`,
    ]);
    // An hourly range kept by a release that kept no visitors is kept again.
    const [kept]: unknown[] = await manager.query(
      cut.epoch === 'hour_epoch' ? `${BUILT(cut)} AND visitors IS NOT NULL` : BUILT(cut),
      [owner, cut.span, cut.until],
    );
    if (kept) return;
    await manager.query(
      'DELETE FROM analytics.account_top_links WHERE owner_id = $1 AND span = $2',
      [owner, cut.span],
    );
    const params: unknown[] = [owner, cut.span];
    const past = linkSums(cut, cut.from, { op: '<', time: cut.until }, params);
    await manager.query(
      `WITH sums AS (
         INSERT INTO analytics.account_top_links (owner_id, span, url_id, visits)
         SELECT $1, $2, url_id, visits FROM (${past}) AS past
       )
       INSERT INTO analytics.account_top_links_built AS b (owner_id, span, until, epoch, visitors)
       VALUES ($1, $2, $3, coalesce(
         (SELECT ${cut.epoch} FROM analytics.account_link_epochs WHERE owner_id = $1), 0),
         ${pastVisitors(cut, params)})
       ON CONFLICT (owner_id, span) DO UPDATE SET
         until = EXCLUDED.until, epoch = EXCLUDED.epoch, visitors = EXCLUDED.visitors`,
      params,
    );
  });
}

const utcDay = (param: string) => `(${param}::timestamptz AT TIME ZONE 'UTC')::date`;

/**
 * For an hourly range (24h): the visitor-days of the days before the current one seen within
 * the window, which no write changes without raising the hour epoch (a late visit there also
 * writes its link's hour); the current day's are counted by account_visitor_counts. NULL for
 * the day ranges. Parameters pushed on `params` ($3 is the cut's hour).
 */
function pastVisitors(cut: LinksCut, params: unknown[]): string {
  if (cut.epoch !== 'hour_epoch' || cut.from === null) return 'NULL::bigint';
  params.push(cut.from);
  const from = `$${params.length}`;
  return `(SELECT count(*) FROM analytics.account_visitor_days
           WHERE owner_id = $1 AND day >= ${utcDay(from)} AND day < ${utcDay('$3')}
             AND last_seen >= ${from})`;
}

/**
 * The visitor-days of an hourly range's window from its kept part and the current day's
 * count, when its past is kept at the epoch this snapshot sees; null otherwise (counted
 * from the rows then).
 */
export async function keptVisitors(
  db: Queryable,
  owner: string,
  cut: LinksCut,
): Promise<number | null> {
  if (cut.epoch !== 'hour_epoch') return null;
  const [row]: Array<{ visitors: string }> = await db.query(
    `SELECT b.visitors + coalesce((SELECT c.visitors FROM analytics.account_visitor_counts c
                                   WHERE c.owner_id = $1 AND c.day = ${utcDay('$3')}), 0)
              AS visitors
     FROM analytics.account_top_links_built b
     WHERE b.visitors IS NOT NULL AND EXISTS (${BUILT(cut)})
       AND b.owner_id = $1 AND b.span = $2`,
    [owner, cut.span, cut.until],
  );
  return row ? count(row.visitors) : null;
}

/**
 * The top links of a kept past and the current part ($1 owner, $2 span, `current`'s
 * parameters after): the ten best kept links' visits, current ones added, set a bar; a kept
 * link further down (fewer than the bar less the most any link had since) or a link only of
 * the current part below the bar cannot reach it, so only the few above are summed (the kept
 * links by their visits' index: every count here a bigint, so the bound is the index's).
 * Fewer than ten kept: all of them.
 */
const KEPT_TOP = (current: string) => `
  WITH current AS MATERIALIZED (${current}),
  best AS (
    SELECT k.visits + coalesce(c.visits, 0) AS visits
    FROM (SELECT url_id, visits FROM analytics.account_top_links
          WHERE owner_id = $1 AND span = $2 ORDER BY visits DESC LIMIT ${STATS_LIST_MAX}) AS k
    LEFT JOIN current c USING (url_id)
  ),
  bar AS (
    SELECT CASE WHEN count(*) = ${STATS_LIST_MAX} THEN min(visits) END AS visits FROM best
  )
  SELECT k.url_id, k.visits + coalesce(c.visits, 0) AS visits
  FROM analytics.account_top_links k LEFT JOIN current c USING (url_id)
  WHERE k.owner_id = $1 AND k.span = $2
    AND k.visits >= coalesce(
      (SELECT visits FROM bar) - (SELECT coalesce(max(visits), 0) FROM current), -1)::bigint
  UNION ALL
  SELECT c.url_id, c.visits FROM current c
  WHERE c.visits >= coalesce((SELECT visits FROM bar), -1)
    AND NOT EXISTS (
      SELECT 1 FROM analytics.account_top_links k
      WHERE k.owner_id = $1 AND k.span = $2 AND k.url_id = c.url_id)`;

/**
 * The owner's top links in the window (most visits first, then by code as the lists order
 * them): from the kept past part and the current part when the past is kept at the epoch this
 * snapshot sees, from every bucket of the window otherwise.
 */
export async function topLinks(
  db: Queryable,
  owner: string,
  window: AccountWindow,
): Promise<Map<string, number>> {
  const cut = linksCut(window);
  const kept: unknown[] = cut ? await db.query(BUILT(cut), [owner, cut.span, cut.until]) : [];
  const params: unknown[] = [owner];
  let sql: string;
  if (cut && kept.length > 0) {
    // The current part is one bucket, the cut's (the window ends in it): a row per link.
    params.push(cut.span, cut.until);
    sql = KEPT_TOP(
      `SELECT value AS url_id, visits FROM analytics.${cut.table}
       WHERE owner_id = $1 AND dimension = 'link' AND ${cut.at('=', '$3')}`,
    );
  } else {
    const from = window.range === 'all' ? null : new Date(window.from);
    sql = linkSums(rowsOf(window), from, { op: '<=', time: new Date(window.to) }, params);
  }
  const rows: Array<{ url_id: string; visits: string }> = await db.query(
    `SELECT url_id, visits FROM (${sql}) AS each WHERE visits > 0
     ORDER BY 2 DESC, url_id COLLATE "C" LIMIT ${STATS_LIST_MAX}`,
    params,
  );
  return new Map(rows.map((row) => [row.url_id, count(row.visits)]));
}
