import { Inject, Injectable } from '@nestjs/common';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { STATS_LIST_MAX, type AccountStats } from '@shortener/contracts';
import { RollupStats } from '../stats/rollup-stats';
import { topList } from '../stats/stats-range';
import type { Queryable, StatsReads } from '../stats/stats-reads';
import { boundRead, connected } from '../visits/analytics-database';
import { AccountFilter } from './account-filter';
import { AccountFilteredStats } from './account-filtered-stats';
import { AccountRollupStats } from './account-rollup-stats';
import { keepPastLinks, linksCut, topLinks } from './account-top-links';
import { exportAccountVisits, type AccountExportedVisit } from './account-visits-csv';
import {
  accountWindow,
  asStatsWindow,
  previousAccountWindow,
  type AccountStatsRequest,
} from './account-window';

/**
 * The statistics of all an owner's links: without a filter from the account rollups, with
 * `link` alone from that link's rollups (if it is the owner's), with other filters from the
 * visits of the owner's links.
 */
@Injectable()
export class AccountStatsRepository {
  /** Whether the visits carry their campaign (utm_* columns), once found. */
  private utm: Promise<boolean> | null = null;

  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  private utmColumns(db: Queryable): Promise<boolean> {
    this.utm ??= db
      .query(
        `SELECT count(*)::int AS n FROM information_schema.columns
         WHERE table_schema = 'analytics' AND table_name = 'visits'
           AND column_name IN ('utm_source', 'utm_medium', 'utm_campaign')`,
      )
      .then((rows: { n: number }[]) => rows[0]?.n === 3)
      .catch((error: unknown) => {
        this.utm = null;
        throw error;
      });
    return this.utm;
  }

  async stats(
    owner: string,
    request: AccountStatsRequest,
    now = Date.now(),
  ): Promise<AccountStats> {
    const db = connected(this.database);
    const utmColumns = await this.utmColumns(db);
    // Without a filter, the top links of a range's past hours or days are summed first (once
    // an hour or day, or after a late visit), outside the snapshot that reads them.
    const cut = AccountFilter.noneIn(request) ? linksCut(accountWindow(request, now, null)) : null;
    if (cut) await keepPastLinks(db, owner, cut);
    // One snapshot for every number, as a link's stats; none of them counted past the wait.
    return db.transaction('REPEATABLE READ', async (manager) => {
      await boundRead(manager);
      return this.read(manager, owner, request, utmColumns, now);
    });
  }

  /** The account's visits of a range (the filters match), oldest first: exportAccountVisits. */
  async export(
    owner: string,
    request: AccountStatsRequest,
    take: (rows: AccountExportedVisit[]) => Promise<boolean>,
  ): Promise<void> {
    const db = connected(this.database);
    await exportAccountVisits(db, owner, request, await this.utmColumns(db), take);
  }

  private async read(
    db: Queryable,
    owner: string,
    request: AccountStatsRequest,
    utmColumns: boolean,
    now: number,
  ): Promise<AccountStats> {
    const custom = request.from !== undefined && request.to !== undefined;
    let firstVisit: number | null = null;
    if (!custom && request.range === 'all') {
      const [first]: { first: Date | null }[] = await db.query(
        'SELECT min(hour) AS first FROM analytics.account_hours WHERE owner_id = $1',
        [owner],
      );
      firstVisit = first?.first ? first.first.getTime() : null;
    }
    const window = accountWindow(request, now, firstVisit);
    const before = previousAccountWindow(window);
    const since = window.range === 'all' ? null : (before?.from ?? window.from);
    const filter = await AccountFilter.of(db, owner, request, utmColumns, since);
    const onlyLink = filter?.onlyLink;
    const stats = asStatsWindow(window);
    let reads: StatsReads;
    if (filter === null) {
      reads = new AccountRollupStats(db, owner, linksCut(window));
    } else if (onlyLink !== undefined) {
      const [mine]: unknown[] = await db.query(
        'SELECT 1 FROM analytics.link_owners WHERE url_id = $1 AND owner_id = $2',
        [onlyLink, owner],
      );
      reads = mine
        ? new RollupStats(db, onlyLink)
        : new AccountFilteredStats(db, filter, false, stats, before);
    } else {
      reads = new AccountFilteredStats(db, filter, utmColumns, stats, before);
    }
    // In turn: a transaction has one connection.
    const series = await reads.series(stats);
    const totals = window.range === 'all' ? await reads.sums(null) : null;
    const uniqueVisitors = await reads.uniqueVisitors(stats);
    const lists = (await reads.breakdowns(stats)) as Map<string, Map<string, number>>;
    if (filter === null) lists.set('link', await topLinks(db, owner, window));
    const previous = before ? await reads.sums(before) : null;
    if (onlyLink !== undefined && !lists.has('link')) {
      const visits = series.reduce((sum, point) => sum + point.visits, 0);
      lists.set('link', new Map(visits > 0 ? [[onlyLink, visits]] : []));
    }
    const summed = totals ?? {
      visits: series.reduce((sum, point) => sum + point.visits, 0),
      humans: series.reduce((sum, point) => sum + point.humans, 0),
      bots: series.reduce((sum, point) => sum + point.bots, 0),
    };
    const named = (dimension: string) =>
      topList(lists.get(dimension) ?? new Map()).map(([name, visits]) => ({ name, visits }));
    const links = [...(lists.get('link') ?? new Map<string, number>())]
      .filter(([, visits]) => visits > 0)
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, STATS_LIST_MAX)
      .map(([urlID, visits]) => ({ urlID, visits }));
    const answer: AccountStats = {
      range: window.range,
      from: window.from,
      to: window.to,
      interval: window.interval,
      totals: { ...summed, uniqueVisitors },
      series,
      browsers: named('browser'),
      os: named('os'),
      devices: named('device'),
      referrers: named('referrer'),
      countries: named('country').map(({ name, visits }) => ({ code: name, visits })),
      links,
      utmSources: named('utm_source'),
      utmMediums: named('utm_medium'),
      utmCampaigns: named('utm_campaign'),
      ...(before && previous ? { previous: { ...before, ...previous } } : {}),
    };
    return answer;
  }
}
