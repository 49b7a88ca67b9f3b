import type { Dimension } from '../visits/rollups';
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

/**
 * A link's statistics from the rollups the consumer keeps beside the visits (never a scan of
 * the visits): series and totals from the hourly counts, lists from the breakdowns (per hour
 * for 24h, per day otherwise), unique visitors from the visitor-days.
 */
export class RollupStats implements StatsReads {
  constructor(
    private readonly db: Queryable,
    private readonly code: string,
  ) {}

  async sums(span: { from: number; to: number } | null): Promise<Counts> {
    const { db, code } = this;
    const [row]: Sums[] = span
      ? await db.query(
          `SELECT sum(visits) AS visits, sum(humans) AS humans, sum(bots) AS bots
           FROM analytics.visit_hours WHERE url_id = $1 AND hour >= $2 AND hour <= $3`,
          [code, new Date(span.from), new Date(span.to)],
        )
      : await db.query(
          `SELECT sum(visits) AS visits, sum(humans) AS humans, sum(bots) AS bots
           FROM analytics.visit_hours WHERE url_id = $1`,
          [code],
        );
    return countsOf(row);
  }

  async series(window: StatsWindow): Promise<SeriesPoint[]> {
    const rows: Array<Sums & { bucket: Date }> = await this.db.query(
      `SELECT date_trunc($4, hour, 'UTC') AS bucket,
              sum(visits) AS visits, sum(humans) AS humans, sum(bots) AS bots
       FROM analytics.visit_hours
       WHERE url_id = $1 AND hour >= $2 AND hour <= $3
       GROUP BY 1`,
      [this.code, new Date(window.from), new Date(window.to), window.interval],
    );
    return seriesOf(window, rows);
  }

  /**
   * For day ranges the visitor-days in it (summed from the day counts); for 24h those whose
   * visitor came back within it (a visitor-day's last visit is in the window).
   */
  async uniqueVisitors(window: StatsWindow): Promise<number> {
    const { db, code } = this;
    const [row]: { visitors: number }[] =
      window.range === 'all'
        ? await db.query(
            `SELECT coalesce(sum(visitors), 0)::int AS visitors FROM analytics.visitor_counts
             WHERE url_id = $1`,
            [code],
          )
        : window.interval === 'day'
          ? await db.query(
              `SELECT coalesce(sum(visitors), 0)::int AS visitors FROM analytics.visitor_counts
               WHERE url_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date`,
              [code, new Date(window.from)],
            )
          : await db.query(
              `SELECT count(*)::int AS visitors FROM analytics.visitor_days
               WHERE url_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date
                 AND last_seen >= $2`,
              [code, new Date(window.from)],
            );
    return row?.visitors ?? 0;
  }

  async breakdowns(window: StatsWindow): Promise<Map<Dimension, Map<string, number>>> {
    const { db, code } = this;
    const rows: Array<{ dimension: Dimension; value: string; visits: string }> =
      window.range === 'all'
        ? await db.query(
            `SELECT dimension, value, sum(visits) AS visits FROM analytics.visit_breakdowns
             WHERE url_id = $1 GROUP BY 1, 2`,
            [code],
          )
        : window.interval === 'day'
          ? await db.query(
              `SELECT dimension, value, sum(visits) AS visits FROM analytics.visit_breakdowns
               WHERE url_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date
                 AND day <= ($3::timestamptz AT TIME ZONE 'UTC')::date
               GROUP BY 1, 2`,
              [code, new Date(window.from), new Date(window.to)],
            )
          : await db.query(
              `SELECT dimension, value, sum(visits) AS visits FROM analytics.visit_breakdown_hours
               WHERE url_id = $1 AND hour >= $2 AND hour <= $3 GROUP BY 1, 2`,
              [code, new Date(window.from), new Date(window.to)],
            );
    const lists = emptyLists();
    for (const row of rows) lists.get(row.dimension)?.set(row.value, count(row.visits));
    return lists;
  }
}
