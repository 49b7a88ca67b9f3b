import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { INTERNAL_CALL_TIMEOUT_MS } from '@shortener/chassis';
import type { ManagedDataSource } from '@shortener/chassis-postgres';
import type { AccountStatsFilters } from '@shortener/contracts';
import { referrerHost } from '../ingest/visit-batch';
import { ownAnalyticsDatabase } from '../migrations/own-database';
import { statsWindow, type StatsWindow } from '../stats/stats-range';
import { addMonths, createMonth, monthOf, type Transact } from '../visits/visit-partitions';
import { AccountFilter } from './account-filter';
import { AccountFilteredStats } from './account-filtered-stats';
import { StatsRepository } from '../stats/stats.repository';
import { AccountStatsRepository } from './account-stats.repository';
import { accountWindow, asStatsWindow, previousAccountWindow } from './account-window';

// An account's filtered statistics, read in one scan, against the same numbers counted here
// from the visits written: the window's series, lists and visitor-days, and the period
// before's sums, for each range, a period, and filters of every kind. A database of its own.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const OWNER = 'owner-filtered';
const LINKS = ['FiltA', 'FiltB', 'FiltC'];
const THEIRS = 'FiltTheirs';

interface Visit {
  url_id: string;
  created_at: Date;
  ip_address: string;
  platform: string;
  browser: string;
  referrer: string | null;
  bot: boolean;
  device: string;
  country: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
}

const pick = <T>(values: readonly T[], n: number): T => values[n % values.length]!;

describe("an account's filtered statistics", () => {
  const own = ownAnalyticsDatabase('analytics_filtered');
  let db: DataSource;
  const now = Date.now();
  const visits: Visit[] = [];

  beforeAll(async () => {
    db = await own.open();
    const transact: Transact = (work) => db.transaction((manager) => work(manager));
    for (let months = -4; months <= 0; months += 1) {
      await createMonth(transact, addMonths(monthOf(now), months));
    }
    await db.query(
      `INSERT INTO analytics.link_owners (url_id, owner_id)
       SELECT unnest($1::varchar[]), $2 UNION ALL SELECT $3, 'someone-else'`,
      [LINKS, OWNER, THEIRS],
    );
    // Visits at hours ago from within the current hour to past 60 days (every window and the
    // period before each), with dimensions varied so that filters and their pairs match some.
    const hoursAgo = [0, 0.5, 2, 5, 23.5, 25, 30, 47, 60, 100, 170, 200, 300, 500, 700, 800, 1000];
    let n = 0;
    for (const ago of hoursAgo) {
      for (let each = 0; each < 7; each += 1, n += 1) {
        const bot = n % 6 === 5;
        visits.push({
          url_id: n % 11 === 0 ? THEIRS : pick(LINKS, n),
          created_at: new Date(now - ago * HOUR - each * 60_000),
          ip_address: pick(['198.51.100.1', '198.51.100.2', '203.0.113.9'], n),
          platform: pick(['Windows', 'iOS', 'Android', 'macOS'], n),
          browser: bot ? 'Googlebot' : pick(['Chrome', 'Safari', 'Firefox'], n),
          referrer: pick([null, 'https://news.example.org/a', 'https://Social.example/p?x=1'], n),
          bot,
          device: bot ? 'bot' : pick(['desktop', 'mobile'], n),
          country: pick(['US', 'GB', 'ZZ', 'US'], n),
          utm_source: n % 3 === 0 ? pick(['newsletter', 'ads'], n) : null,
          utm_medium: n % 3 === 0 ? 'email' : null,
          utm_campaign: n % 5 === 0 ? pick(['spring', 'autumn'], n) : null,
        });
      }
    }
    const columns = Object.keys(visits[0]!) as Array<keyof Visit>;
    for (const visit of visits) {
      await db.query(
        `INSERT INTO analytics.visits (id, ${columns.join(', ')})
         VALUES (gen_random_uuid(), ${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        columns.map((column) => visit[column]),
      );
    }
  });

  afterAll(async () => {
    await own.close();
  });

  /** What the filter matches of the owner's visits, counted here. */
  const matches = (filters: AccountStatsFilters) => (visit: Visit) =>
    LINKS.includes(visit.url_id) &&
    (filters.link === undefined || visit.url_id === filters.link) &&
    (filters.country === undefined || visit.country === filters.country) &&
    (filters.device === undefined || visit.device === filters.device) &&
    (filters.browser === undefined || visit.browser === filters.browser) &&
    (filters.os === undefined || visit.platform === filters.os) &&
    (filters.referrer === undefined || referrerHost(visit.referrer) === filters.referrer) &&
    (filters.utm_source === undefined || visit.utm_source === filters.utm_source) &&
    (filters.utm_medium === undefined || visit.utm_medium === filters.utm_medium) &&
    (filters.utm_campaign === undefined || visit.utm_campaign === filters.utm_campaign);

  const hourEnd = (time: number) => Math.floor(time / HOUR) * HOUR + HOUR;
  const within = (span: { from: number; to: number } | null) => (visit: Visit) =>
    span === null ||
    (visit.created_at.getTime() >= span.from && visit.created_at.getTime() < hourEnd(span.to));
  const counts = (list: Visit[]) => ({
    visits: list.length,
    humans: list.filter((visit) => !visit.bot).length,
    bots: list.filter((visit) => visit.bot).length,
  });

  /** The answers counted here from the visits written. */
  function expected(
    filters: AccountStatsFilters,
    window: StatsWindow,
    before: { from: number; to: number } | null,
  ) {
    const matching = visits.filter(matches(filters));
    const inWindow = matching.filter(within(window.range === 'all' ? null : window));
    const unit = window.interval === 'hour' ? HOUR : DAY;
    const series = window.buckets.map((t) =>
      counts(
        inWindow.filter((visit) => Math.floor(visit.created_at.getTime() / unit) * unit === t),
      ),
    );
    const lists: Record<string, Record<string, number>> = {};
    const add = (dimension: string, value: string | null) => {
      if (value === null) return;
      lists[dimension] ??= {};
      lists[dimension][value] = (lists[dimension][value] ?? 0) + 1;
    };
    for (const visit of inWindow) {
      add('browser', visit.browser);
      add('os', visit.platform);
      add('device', visit.device);
      add('referrer', referrerHost(visit.referrer));
      add('country', visit.country);
      add('link', visit.url_id);
      add('utm_source', visit.utm_source);
      add('utm_medium', visit.utm_medium);
      add('utm_campaign', visit.utm_campaign);
    }
    const day = (visit: Visit) => visit.created_at.toISOString().slice(0, 10);
    const visitors = new Set(
      inWindow.map((visit) => [day(visit), visit.ip_address, visit.platform, visit.browser].join()),
    );
    return {
      series,
      lists,
      visitors: visitors.size,
      before: before ? counts(matching.filter(within(before))) : null,
    };
  }

  async function read(
    filters: AccountStatsFilters,
    window: StatsWindow,
    before: { from: number; to: number } | null,
  ) {
    const filter = await AccountFilter.of(db, OWNER, filters, true, null);
    const reads = new AccountFilteredStats(
      db,
      filter ?? AccountFilter.everything(OWNER),
      true,
      window,
      before,
    );
    const lists: Record<string, Record<string, number>> = {};
    for (const [dimension, list] of await reads.breakdowns(window)) {
      lists[dimension] = Object.fromEntries(list);
    }
    return {
      series: (await reads.series(window)).map(({ visits, humans, bots }) => ({
        visits,
        humans,
        bots,
      })),
      lists,
      visitors: await reads.uniqueVisitors(window),
      before: before ? await reads.sums(before) : null,
    };
  }

  const FILTERS: AccountStatsFilters[] = [
    {},
    { country: 'US' },
    { device: 'bot' },
    { browser: 'Safari' },
    { os: 'iOS' },
    { referrer: 'social.example' },
    { referrer: '(direct)' },
    { utm_source: 'newsletter' },
    { utm_campaign: 'spring' },
    { country: 'GB', device: 'mobile' },
    { link: 'FiltB', os: 'Android' },
    { link: THEIRS, country: 'US' },
  ];

  it.each(['24h', '7d', '30d', 'all'] as const)(
    'count in one scan what the visits hold, under each filter (%s)',
    async (range) => {
      const window = statsWindow(range, now, {
        createdAt: null,
        firstVisit: now - 1000 * HOUR - 6 * 60_000,
      });
      const before = previousAccountWindow(window);
      for (const filters of FILTERS) {
        const answer = await read(filters, window, before);
        expect({ filters, ...answer }).toEqual({ filters, ...expected(filters, window, before) });
      }
      const every = await read({}, window, before);
      expect(every.series.some((point) => point.visits > 0)).toBe(true);
      if (before) expect(every.before?.visits).toBeGreaterThan(0);
    },
  );

  it('counts a period given by from and to, and the period of its length before it', async () => {
    const period = accountWindow(
      { range: '30d', from: now - 40 * DAY, to: now - 3 * DAY },
      now,
      null,
    );
    const window = asStatsWindow(period);
    const before = previousAccountWindow(period);
    for (const filters of FILTERS) {
      const answer = await read(filters, window, before);
      expect({ filters, ...answer }).toEqual({ filters, ...expected(filters, window, before) });
    }
  });

  it.each([
    [
      "an account's",
      (source: ManagedDataSource) =>
        new AccountStatsRepository(source).stats(OWNER, { range: '30d', country: 'US' }),
    ],
    [
      "a link's",
      (source: ManagedDataSource) =>
        new StatsRepository(source).stats('FiltA', '30d', null, Date.now(), { country: 'US' }),
    ],
  ])(
    "%s filtered statistics stop counting once the caller has stopped waiting (the internal calls' timeout)",
    async (_, read) => {
      const source = { isConnected: true, dataSource: db } as unknown as ManagedDataSource;
      // Another transaction holds the visits: the read waits, as a scan of millions would run.
      const holder = new Client({ connectionString: own.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE analytics.visits IN ACCESS EXCLUSIVE MODE');
        const began = Date.now();
        await expect(read(source)).rejects.toMatchObject({ code: '57014' });
        expect(Date.now() - began).toBeGreaterThanOrEqual(INTERNAL_CALL_TIMEOUT_MS - 100);
        expect(Date.now() - began).toBeLessThan(INTERNAL_CALL_TIMEOUT_MS + 2000);
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      // The same read once the visits are free.
      expect((await read(source)).totals.visits).toBeGreaterThan(0);
    },
    20_000,
  );

  it('answers only the window and the period it was made for', async () => {
    const window = statsWindow('7d', now, { createdAt: null, firstVisit: null });
    const reads = new AccountFilteredStats(
      db,
      AccountFilter.everything(OWNER),
      true,
      window,
      previousAccountWindow(window),
    );
    const other = statsWindow('30d', now, { createdAt: null, firstVisit: null });
    await expect(reads.series(other)).rejects.toThrow('not the window scanned');
    await expect(reads.sums({ from: 0, to: now })).rejects.toThrow('not the period scanned');
  });
});
