import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import type { LinkStats, StatsRange } from '@shortener/contracts';
import { connected } from '../visits/analytics-database';
import { DIMENSIONS, type Dimension } from '../visits/rollups';
import { previousWindow, statsWindow, topList, type StatsWindow } from './stats-range';

type SeriesPoint = LinkStats['series'][number];
type Queryable = Pick<EntityManager, 'query'>;

interface ExportedVisit {
  id: string;
  created_at: Date;
  ip_address: string;
  country: string;
  platform: string;
  browser: string;
  device: string;
  referrer: string | null;
  bot: boolean;
}

interface Sums {
  visits: string | null;
  humans: string | null;
  bots: string | null;
}

const count = (value: string | number | null | undefined): number => Number(value ?? 0);

/**
 * A link's statistics, from the rollups the consumer keeps beside the visits (never a scan of
 * the visits): series and totals from the hourly counts, lists from the breakdowns (per hour
 * for 24h, per day otherwise), unique visitors from the visitor-days.
 */
@Injectable()
export class StatsRepository {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  async stats(
    code: string,
    range: StatsRange,
    createdAt: number | null,
    now = Date.now(),
  ): Promise<LinkStats> {
    // One snapshot for every number: run apart, the totals could be read after a batch of
    // visits was stored and the unique visitors before it (seen: 4 visits, 0 visitors).
    return connected(this.database).transaction('REPEATABLE READ', (db) =>
      this.read(db, code, range, createdAt, now),
    );
  }

  private async read(
    db: Queryable,
    code: string,
    range: StatsRange,
    createdAt: number | null,
    now: number,
  ): Promise<LinkStats> {
    let firstVisit: number | null = null;
    if (range === 'all') {
      const [first]: { first: Date | null }[] = await db.query(
        'SELECT min(hour) AS first FROM analytics.visit_hours WHERE url_id = $1',
        [code],
      );
      firstVisit = first?.first ? first.first.getTime() : null;
    }
    const window = statsWindow(range, now, { createdAt, firstVisit });
    const before = previousWindow(window);
    // In turn: a transaction has one connection.
    const series = await this.series(db, code, window);
    const totals = range === 'all' ? await this.sums(db, code, null) : null;
    const uniqueVisitors = await this.uniqueVisitors(db, code, window);
    const lists = await this.breakdowns(db, code, window);
    const previous = before ? await this.sums(db, code, before) : null;
    const summed = totals ?? {
      visits: series.reduce((sum, point) => sum + point.visits, 0),
      humans: series.reduce((sum, point) => sum + point.humans, 0),
      bots: series.reduce((sum, point) => sum + point.bots, 0),
    };
    const named = (dimension: Dimension) =>
      topList(lists.get(dimension) ?? new Map()).map(([name, visits]) => ({ name, visits }));
    return {
      urlID: code,
      range,
      from: window.from,
      to: window.to,
      interval: window.interval,
      totals: { ...summed, uniqueVisitors },
      series,
      browsers: named('browser'),
      os: named('os'),
      devices: named('device'),
      referrers: named('referrer'),
      countries: topList(lists.get('country') ?? new Map()).map(([code, visits]) => ({
        code,
        visits,
      })),
      ...(before && previous ? { previous: { ...before, ...previous } } : {}),
    };
  }

  /**
   * Visits, people and bots in the hours from `from` to `to` (both included, as the series),
   * or of all time, whatever the timestamps (then equal to the link's visit count).
   */
  private async sums(
    db: Queryable,
    code: string,
    span: { from: number; to: number } | null,
  ): Promise<{ visits: number; humans: number; bots: number }> {
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
    return { visits: count(row?.visits), humans: count(row?.humans), bots: count(row?.bots) };
  }

  /** Every bucket of the window, zeros included, oldest first. */
  private async series(db: Queryable, code: string, window: StatsWindow): Promise<SeriesPoint[]> {
    const rows: Array<Sums & { bucket: Date }> = await db.query(
      `SELECT date_trunc($4, hour, 'UTC') AS bucket,
              sum(visits) AS visits, sum(humans) AS humans, sum(bots) AS bots
       FROM analytics.visit_hours
       WHERE url_id = $1 AND hour >= $2 AND hour <= $3
       GROUP BY 1`,
      [code, new Date(window.from), new Date(window.to), window.interval],
    );
    const byBucket = new Map(rows.map((row) => [row.bucket.getTime(), row]));
    return window.buckets.map((t) => {
      const row = byBucket.get(t);
      return { t, visits: count(row?.visits), humans: count(row?.humans), bots: count(row?.bots) };
    });
  }

  /**
   * Visitor-days in the window: for day ranges the days in it; for 24h those whose visitor
   * came back within it (a visitor-day's last visit is in the window).
   */
  private async uniqueVisitors(db: Queryable, code: string, window: StatsWindow): Promise<number> {
    const [row]: { visitors: number }[] =
      window.range === 'all'
        ? await db.query(
            'SELECT count(*)::int AS visitors FROM analytics.visitor_days WHERE url_id = $1',
            [code],
          )
        : window.interval === 'day'
          ? await db.query(
              `SELECT count(*)::int AS visitors FROM analytics.visitor_days
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

  private async breakdowns(
    db: Queryable,
    code: string,
    window: StatsWindow,
  ): Promise<Map<Dimension, Map<string, number>>> {
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
    const lists = new Map<Dimension, Map<string, number>>(
      DIMENSIONS.map((dimension) => [dimension, new Map()]),
    );
    for (const row of rows) lists.get(row.dimension)?.set(row.value, count(row.visits));
    return lists;
  }

  /**
   * One page of a link's visits for the CSV export, oldest first, after the given one (by
   * time, then id), so the export streams with a bounded amount in memory.
   */
  async exportPage(
    code: string,
    after: { createdAt: Date; id: string } | null,
    limit: number,
  ): Promise<ExportedVisit[]> {
    const columns = `id, created_at, ip_address, country, platform, browser, device, referrer, bot`;
    return after
      ? connected(this.database).query(
          `SELECT ${columns} FROM analytics.visits
           WHERE url_id = $1 AND (created_at, id) > ($2::timestamptz, $3::uuid)
           ORDER BY created_at, id LIMIT $4`,
          [code, after.createdAt, after.id, limit],
        )
      : connected(this.database).query(
          `SELECT ${columns} FROM analytics.visits WHERE url_id = $1
           ORDER BY created_at, id LIMIT $2`,
          [code, limit],
        );
  }
}
