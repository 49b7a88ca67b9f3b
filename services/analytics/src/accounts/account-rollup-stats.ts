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
import { keptVisitors, type LinksCut } from './account-top-links';

/** The lists of the account reads: a link's dimensions, and `link` (visits per code). */
export type AccountDimension = Dimension | 'link';

/**
 * An account's statistics from its rollups (never a scan of the visits): as RollupStats
 * reads a link's, from the account tables the consumer raises in the same transaction.
 */
export class AccountRollupStats implements StatsReads {
  constructor(
    private readonly db: Queryable,
    private readonly owner: string,
    /** The window's cut, where its past may be kept (keepPastLinks). */
    private readonly cut: LinksCut | null = null,
  ) {}

  async sums(span: { from: number; to: number } | null): Promise<Counts> {
    const { db, owner } = this;
    const [row]: Sums[] = span
      ? await db.query(
          `SELECT sum(visits) AS visits, sum(humans) AS humans, sum(bots) AS bots
           FROM analytics.account_hours WHERE owner_id = $1 AND hour >= $2 AND hour <= $3`,
          [owner, new Date(span.from), new Date(span.to)],
        )
      : await db.query(
          `SELECT sum(visits) AS visits, sum(humans) AS humans, sum(bots) AS bots
           FROM analytics.account_hours WHERE owner_id = $1`,
          [owner],
        );
    return countsOf(row);
  }

  async series(window: StatsWindow): Promise<SeriesPoint[]> {
    const rows: Array<Sums & { bucket: Date }> = await this.db.query(
      `SELECT date_trunc($4, hour, 'UTC') AS bucket,
              sum(visits) AS visits, sum(humans) AS humans, sum(bots) AS bots
       FROM analytics.account_hours
       WHERE owner_id = $1 AND hour >= $2 AND hour <= $3
       GROUP BY 1`,
      [this.owner, new Date(window.from), new Date(window.to), window.interval],
    );
    return seriesOf(window, rows);
  }

  /**
   * Visitor-days, as a link's: for day windows summed from the day counts; for 24h (and hourly
   * periods) counted, those seen again within it (at most two days of rows), or for 24h the
   * previous day's kept with its top links and the current day's count.
   */
  async uniqueVisitors(window: StatsWindow): Promise<number> {
    const { db, owner } = this;
    if (window.interval === 'hour' && this.cut) {
      const kept = await keptVisitors(db, owner, this.cut);
      if (kept !== null) return kept;
    }
    const day = (param: string) => `(${param}::timestamptz AT TIME ZONE 'UTC')::date`;
    const [row]: { visitors: number }[] =
      window.range === 'all'
        ? await db.query(
            `SELECT coalesce(sum(visitors), 0)::int AS visitors
             FROM analytics.account_visitor_counts WHERE owner_id = $1`,
            [owner],
          )
        : window.interval === 'day'
          ? await db.query(
              `SELECT coalesce(sum(visitors), 0)::int AS visitors
               FROM analytics.account_visitor_counts
               WHERE owner_id = $1 AND day >= ${day('$2')} AND day <= ${day('$3')}`,
              [owner, new Date(window.from), new Date(window.to)],
            )
          : await db.query(
              `SELECT count(*)::int AS visitors FROM analytics.account_visitor_days
               WHERE owner_id = $1 AND day >= ${day('$2')} AND day <= ${day('$3')}
                 AND last_seen >= $2`,
              [owner, new Date(window.from), new Date(window.to)],
            );
    return row?.visitors ?? 0;
  }

  /** The lists but `link` (topLinks reads the links, without summing every one of them). */
  async breakdowns(window: StatsWindow): Promise<Map<Dimension, Map<string, number>>> {
    const { db, owner } = this;
    const rows: Array<{ dimension: AccountDimension; value: string; visits: string }> =
      window.range === 'all'
        ? await db.query(
            `SELECT dimension, value, sum(visits) AS visits FROM analytics.account_breakdowns
             WHERE owner_id = $1 AND dimension <> 'link' GROUP BY 1, 2`,
            [owner],
          )
        : window.interval === 'day'
          ? await db.query(
              `SELECT dimension, value, sum(visits) AS visits FROM analytics.account_breakdowns
               WHERE owner_id = $1 AND dimension <> 'link'
                 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date
                 AND day <= ($3::timestamptz AT TIME ZONE 'UTC')::date
               GROUP BY 1, 2`,
              [owner, new Date(window.from), new Date(window.to)],
            )
          : await db.query(
              `SELECT dimension, value, sum(visits) AS visits
               FROM analytics.account_breakdown_hours
               WHERE owner_id = $1 AND dimension <> 'link' AND hour >= $2 AND hour <= $3
               GROUP BY 1, 2`,
              [owner, new Date(window.from), new Date(window.to)],
            );
    const lists = new Map<AccountDimension, Map<string, number>>();
    for (const row of rows) {
      let list = lists.get(row.dimension);
      if (!list) lists.set(row.dimension, (list = new Map<string, number>()));
      list.set(row.value, count(row.visits));
    }
    return lists as Map<Dimension, Map<string, number>>;
  }
}
