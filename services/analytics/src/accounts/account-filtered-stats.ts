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

const COUNTS = `count(*) AS visits, count(*) FILTER (WHERE NOT bot) AS humans,
  count(*) FILTER (WHERE bot) AS bots`;

/** The dimensions the filtered lists read, with `link` and the UTM ones when stored. */
const LIST_COLUMNS = `('browser', browser), ('os', platform), ('device', device),
  ('referrer', referrer), ('country', country::text), ('link', url_id::text)`;
const UTM_LIST_COLUMNS = `, ('utm_source', utm_source), ('utm_medium', utm_medium),
  ('utm_campaign', utm_campaign)`;

/**
 * An account's statistics of the visits a filter matches, counted from the visits of its
 * links (as FilteredStats counts a link's), in the window's month partitions.
 */
export class AccountFilteredStats implements StatsReads {
  constructor(
    private readonly db: Queryable,
    private readonly filter: AccountFilter,
    private readonly utmColumns: boolean,
  ) {}

  private where(span: { from: number; to: number } | null, params: unknown[]): string {
    let where = this.filter.scope(params);
    if (span) {
      params.push(new Date(span.from), new Date(hourEnd(span.to)));
      where += ` AND created_at >= $${params.length - 1} AND created_at < $${params.length}`;
    }
    return where + this.filter.sql(params);
  }

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

  /** Visitor-days as FilteredStats counts them: a day's address, system and browser. */
  async uniqueVisitors(window: StatsWindow): Promise<number> {
    const params: unknown[] = [];
    const [row]: { visitors: number }[] = await this.db.query(
      `SELECT count(DISTINCT ((created_at AT TIME ZONE 'UTC')::date, ip_address, platform,
                              browser))::int AS visitors
       FROM analytics.visits WHERE ${this.where(AccountFilteredStats.span(window), params)}`,
      params,
    );
    return row?.visitors ?? 0;
  }

  async breakdowns(window: StatsWindow): Promise<Map<Dimension, Map<string, number>>> {
    const params: unknown[] = [];
    const rows: Array<{ dimension: string; value: string | null; visits: string }> =
      await this.db.query(
        `SELECT d.dimension, d.value, count(*) AS visits
         FROM analytics.visits
         CROSS JOIN LATERAL (VALUES ${LIST_COLUMNS}${this.utmColumns ? UTM_LIST_COLUMNS : ''})
           AS d(dimension, value)
         WHERE ${this.where(AccountFilteredStats.span(window), params)}
           AND (d.dimension NOT LIKE 'utm%' OR d.value IS NOT NULL)
         GROUP BY 1, 2`,
        params,
      );
    const lists = new Map<string, Map<string, number>>();
    for (const row of rows) {
      const value = row.dimension === 'referrer' ? referrerHost(row.value) : (row.value ?? '');
      let list = lists.get(row.dimension);
      if (!list) lists.set(row.dimension, (list = new Map<string, number>()));
      list.set(value, (list.get(value) ?? 0) + count(row.visits));
    }
    return lists as Map<Dimension, Map<string, number>>;
  }
}
