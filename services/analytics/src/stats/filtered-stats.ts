import { referrerHost } from '../ingest/visit-batch';
import type { Dimension } from '../visits/rollups';
import type { VisitFilter } from '../visits/visit-filter';
import type { StatsWindow } from './stats-range';
import {
  count,
  countsOf,
  emptyLists,
  seriesOf,
  type Counts,
  type Queryable,
  type SeriesPoint,
  type StatsReads,
  type Sums,
} from './stats-reads';

const HOUR_MS = 3_600_000;

/** Where the hour holding `time` ends: the rollups count whole hours, and so do these. */
const hourEnd = (time: number): number => Math.floor(time / HOUR_MS) * HOUR_MS + HOUR_MS;

const COUNTS = `count(*) AS visits, count(*) FILTER (WHERE NOT bot) AS humans,
  count(*) FILTER (WHERE bot) AS bots`;

/**
 * A link's statistics of the visits a filter matches, counted from the visits themselves
 * (the rollups do not tell the dimensions of a visit apart): the link's index on
 * (url_id, created_at) finds its visits in the window, in the month partitions it spans.
 * A visitor-day is a UTC day's address, system and browser, as the rollups counted visits
 * stored before they kept a keyed hash: the visits keep no hash.
 */
export class FilteredStats implements StatsReads {
  constructor(
    private readonly db: Queryable,
    private readonly code: string,
    private readonly filter: VisitFilter,
  ) {}

  /** The link, the hours from `from` to the one holding `to` (all time for none), the filter. */
  private where(span: { from: number; to: number } | null, params: unknown[]): string {
    params.push(this.code);
    let where = `url_id = $${params.length}`;
    if (span) {
      params.push(new Date(span.from), new Date(hourEnd(span.to)));
      where += ` AND created_at >= $${params.length - 1} AND created_at < $${params.length}`;
    }
    return where + this.filter.sql(params);
  }

  /** The window, or all time for `all` (as the rollups' lists and visitors count it). */
  private static span(window: StatsWindow): StatsWindow | null {
    return window.range === 'all' ? null : window;
  }

  async sums(span: { from: number; to: number } | null): Promise<Counts> {
    const params: unknown[] = [];
    const [row]: Sums[] = await this.db.query(
      `SELECT ${COUNTS} FROM analytics.visits WHERE ${this.where(span, params)}`,
      params,
    );
    return countsOf(row);
  }

  async series(window: StatsWindow): Promise<SeriesPoint[]> {
    const params: unknown[] = [window.interval];
    const rows: Array<Sums & { bucket: Date }> = await this.db.query(
      `SELECT date_trunc($1, created_at, 'UTC') AS bucket, ${COUNTS}
       FROM analytics.visits WHERE ${this.where(window, params)} GROUP BY 1`,
      params,
    );
    return seriesOf(window, rows);
  }

  async uniqueVisitors(window: StatsWindow): Promise<number> {
    const params: unknown[] = [];
    const [row]: { visitors: number }[] = await this.db.query(
      `SELECT count(DISTINCT ((created_at AT TIME ZONE 'UTC')::date, ip_address, platform,
                              browser))::int AS visitors
       FROM analytics.visits WHERE ${this.where(FilteredStats.span(window), params)}`,
      params,
    );
    return row?.visitors ?? 0;
  }

  /** The referrers by host, as the rollups count them (the visits keep the referrer whole). */
  async breakdowns(window: StatsWindow): Promise<Map<Dimension, Map<string, number>>> {
    const params: unknown[] = [];
    const rows: Array<{ dimension: Dimension; value: string | null; visits: string }> =
      await this.db.query(
        `SELECT d.dimension, d.value, count(*) AS visits
         FROM analytics.visits
         CROSS JOIN LATERAL (VALUES
           ('browser', browser), ('os', platform), ('device', device),
           ('referrer', referrer), ('country', country::text)
         ) AS d(dimension, value)
         WHERE ${this.where(FilteredStats.span(window), params)}
         GROUP BY 1, 2`,
        params,
      );
    const lists = emptyLists();
    for (const row of rows) {
      const value = row.dimension === 'referrer' ? referrerHost(row.value) : (row.value ?? '');
      const list = lists.get(row.dimension);
      list?.set(value, (list.get(value) ?? 0) + count(row.visits));
    }
    return lists;
  }
}
