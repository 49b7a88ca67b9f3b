import { referrerHost } from '../ingest/visit-batch';
import type { StatsWindow } from '../stats/stats-range';
import {
  count,
  countsOf,
  seriesOf,
  type Counts,
  type Queryable,
  type SeriesPoint,
  type StatsReads,
  type Sums,
} from '../stats/stats-reads';
import type { Dimension } from '../visits/rollups';
import type { AccountFilter } from './account-filter';

const HOUR_MS = 3_600_000;
const hourEnd = (time: number): number => Math.floor(time / HOUR_MS) * HOUR_MS + HOUR_MS;

type Span = { from: number; to: number };

/**
 * The groups one scan counts, each a column of the matching visits: the window's buckets, a
 * list per dimension (`link` and, when stored, the UTM ones), and the visitor-days (a UTC
 * day's address, system and browser, as FilteredStats counts a link's).
 */
const LISTS = [
  ['browser', 'browser'],
  ['os', 'platform'],
  ['device', 'device'],
  ['referrer', 'referrer'],
  ['country', 'country::text'],
  ['link', 'url_id::text'],
] as const;
const UTM_LISTS = [
  ['utm_source', 'utm_source'],
  ['utm_medium', 'utm_medium'],
  ['utm_campaign', 'utm_campaign'],
] as const;

/** What the scan answers: the window's series rows, lists and visitor-days; the sums before. */
interface Scanned {
  buckets: Array<Sums & { bucket: Date }>;
  lists: Map<string, Map<string, number>>;
  visitors: number;
  before: Counts;
}

/**
 * An account's statistics of the visits a filter matches, counted from the visits of its
 * links in the window's month partitions, in one scan: the window's buckets, lists and
 * visitor-days, and the sums of the period before, are grouping sets of the same rows (five
 * reads of the visits were five scans of every visit of the account). Answers the window and
 * the period it is made for.
 */
export class AccountFilteredStats implements StatsReads {
  private scanned: Promise<Scanned> | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly filter: AccountFilter,
    private readonly utmColumns: boolean,
    private readonly window: StatsWindow,
    private readonly before: Span | null,
  ) {}

  async sums(span: Span | null): Promise<Counts> {
    const scanned = await this.scan();
    if (span === null && this.window.range === 'all') {
      return scanned.buckets.reduce<Counts>((sums, row) => add(sums, countsOf(row)), ZERO);
    }
    if (span !== this.before || span === null) throw new Error('not the period scanned');
    return scanned.before;
  }

  async series(window: StatsWindow): Promise<SeriesPoint[]> {
    this.check(window);
    return seriesOf(window, (await this.scan()).buckets);
  }

  async uniqueVisitors(window: StatsWindow): Promise<number> {
    this.check(window);
    return (await this.scan()).visitors;
  }

  async breakdowns(window: StatsWindow): Promise<Map<Dimension, Map<string, number>>> {
    this.check(window);
    return (await this.scan()).lists as Map<Dimension, Map<string, number>>;
  }

  private check(window: StatsWindow): void {
    if (window !== this.window) throw new Error('not the window scanned');
  }

  private scan(): Promise<Scanned> {
    this.scanned ??= this.read();
    return this.scanned;
  }

  /**
   * The visits from the period before (or the window) to the window's last hour (all of them
   * for `all`), each marked inside the window or in the period before; grouped by the sets,
   * the visitor-days counted in the database, not sent.
   */
  private async read(): Promise<Scanned> {
    const { window, before } = this;
    const params: unknown[] = [window.interval];
    let where = this.filter.scope(params);
    let inside = 'true';
    let earlier = 'false';
    if (window.range !== 'all') {
      params.push(new Date(window.from));
      inside = `created_at >= $${params.length}`;
      const bounds = before ? [before.from, hourEnd(before.to)] : [window.from, window.from];
      params.push(new Date(Math.min(window.from, bounds[0]!)), new Date(hourEnd(window.to)));
      where += ` AND created_at >= $${params.length - 1} AND created_at < $${params.length}`;
      params.push(new Date(bounds[0]!), new Date(bounds[1]!));
      earlier = `(created_at >= $${params.length - 1} AND created_at < $${params.length})`;
    }
    where += this.filter.sql(params);
    const lists = this.utmColumns ? [...LISTS, ...UTM_LISTS] : LISTS;
    const columns = lists.map(([name, column]) => `${column} AS ${name}`).join(', ');
    const names = lists.map(([name]) => name);
    // GROUPING() of the sets' columns: a bit per column, set where a row's set lacks it.
    const grouped = ['bucket', ...names, 'day'];
    const setOf = (...members: string[]) =>
      grouped.reduce(
        (bits, name, index) =>
          members.includes(name) ? bits : bits | (1 << (grouped.length - 1 - index)),
        0,
      );
    const visitorSet = setOf('day', 'browser', 'os');
    const bucketSet = setOf('bucket');
    const rows: Array<
      Sums & { set: number; inside: boolean; earlier: boolean; key: string | null; bucket: Date }
    > = await this.db.query(
      `WITH matching AS (
           SELECT ${inside} AS inside, ${earlier} AS earlier,
                  date_trunc($1, created_at, 'UTC') AS bucket, bot, ${columns},
                  (created_at AT TIME ZONE 'UTC')::date AS day, ip_address
           FROM analytics.visits WHERE ${where}
         ),
         sets AS (
           SELECT GROUPING(${grouped.join(', ')}) AS set, inside, earlier, bucket,
                  coalesce(${names.join(', ')}) AS key,
                  count(*) AS visits, count(*) FILTER (WHERE NOT bot) AS humans,
                  count(*) FILTER (WHERE bot) AS bots
           FROM matching
           GROUP BY GROUPING SETS ((inside, earlier, bucket),
             ${names.map((name) => `(inside, ${name})`).join(', ')},
             (inside, day, ip_address, os, browser))
         )
         SELECT set, inside, earlier, bucket, key, visits, humans, bots FROM sets
         WHERE set <> ${visitorSet}
         UNION ALL
         SELECT ${visitorSet}, true, false, NULL, NULL, count(*), 0, 0 FROM sets
         WHERE set = ${visitorSet} AND inside`,
      params,
    );
    const listOf = new Map(names.map((name) => [setOf(name), name]));
    const scanned: Scanned = { buckets: [], lists: new Map(), visitors: 0, before: ZERO };
    for (const row of rows) {
      if (row.set === visitorSet) {
        scanned.visitors = count(row.visits);
      } else if (row.set === bucketSet) {
        if (row.inside) scanned.buckets.push(row);
        if (row.earlier) scanned.before = add(scanned.before, countsOf(row));
      } else if (row.inside) {
        const name = listOf.get(row.set);
        if (name === undefined) continue;
        // The visits keep the referrer whole; the lists count it by host.
        const value = name === 'referrer' ? referrerHost(row.key) : row.key;
        // A visit outside a campaign has no UTM value: no entry (a link's lists have none).
        if (value === null) continue;
        let list = scanned.lists.get(name);
        if (!list) scanned.lists.set(name, (list = new Map<string, number>()));
        list.set(value, (list.get(value) ?? 0) + count(row.visits));
      }
    }
    return scanned;
  }
}

const ZERO: Counts = { visits: 0, humans: 0, bots: 0 };
const add = (a: Counts, b: Counts): Counts => ({
  visits: a.visits + b.visits,
  humans: a.humans + b.humans,
  bots: a.bots + b.bots,
});
