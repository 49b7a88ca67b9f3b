import { Inject, Injectable } from '@nestjs/common';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import type { LinkStats, StatsFilters, StatsRange } from '@shortener/contracts';
import { boundRead, connected } from '../visits/analytics-database';
import type { Dimension } from '../visits/rollups';
import { VisitFilter } from '../visits/visit-filter';
import { FilteredStats } from './filtered-stats';
import { RollupStats } from './rollup-stats';
import { previousWindow, statsWindow, topList } from './stats-range';
import type { Queryable } from './stats-reads';
import type { ExportedVisit } from './visits-csv';

/**
 * A link's statistics: of all its visits from the rollups (RollupStats), of those filters
 * match from the visits (FilteredStats).
 */
@Injectable()
export class StatsRepository {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  async stats(
    code: string,
    range: StatsRange,
    createdAt: number | null,
    now = Date.now(),
    filters: StatsFilters = {},
  ): Promise<LinkStats> {
    // One snapshot for every number: run apart, the totals could be read after a batch of
    // visits was stored and the unique visitors before it (seen: 4 visits, 0 visitors). None
    // counted past the caller's wait (a filter reads the link's visits themselves).
    return connected(this.database).transaction('REPEATABLE READ', async (db) => {
      await boundRead(db);
      return this.read(db, code, range, createdAt, filters, now);
    });
  }

  private async read(
    db: Queryable,
    code: string,
    range: StatsRange,
    createdAt: number | null,
    filters: StatsFilters,
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
    const since = range === 'all' ? null : (before?.from ?? window.from);
    const filter = await VisitFilter.of(db, code, filters, since);
    const reads = filter ? new FilteredStats(db, code, filter) : new RollupStats(db, code);
    // In turn: a transaction has one connection.
    const series = await reads.series(window);
    const totals = range === 'all' ? await reads.sums(null) : null;
    const uniqueVisitors = await reads.uniqueVisitors(window);
    const lists = await reads.breakdowns(window);
    const previous = before ? await reads.sums(before) : null;
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

  /** The filter of a link's visits, or null when no filter is given. */
  async filter(code: string, filters: StatsFilters): Promise<VisitFilter | null> {
    return VisitFilter.of(connected(this.database), code, filters);
  }

  /**
   * One page of a link's visits (those the filter matches) for the CSV export, oldest first,
   * after the given one (by time, then id), so the export streams with a bounded amount in
   * memory.
   */
  async exportPage(
    code: string,
    after: { createdAt: Date; id: string } | null,
    limit: number,
    filter: VisitFilter | null = null,
  ): Promise<ExportedVisit[]> {
    const columns = `id, created_at, ip_address, country, platform, browser, device, referrer, bot,
      utm_source, utm_medium, utm_campaign`;
    const params: unknown[] = [code, limit];
    let where = 'url_id = $1';
    if (after) {
      params.push(after.createdAt, after.id);
      where += ' AND (created_at, id) > ($3::timestamptz, $4::uuid)';
    }
    where += filter?.sql(params) ?? '';
    return connected(this.database).query(
      `SELECT ${columns} FROM analytics.visits WHERE ${where}
       ORDER BY created_at, id LIMIT $2`,
      params,
    );
  }
}
