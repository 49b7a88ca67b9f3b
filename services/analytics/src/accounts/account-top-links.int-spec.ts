import type { DataSource } from 'typeorm';
import { ownAnalyticsDatabase } from '../migrations/own-database';
import { statsWindow } from '../stats/stats-range';
import { keepPastLinks, keptVisitors, linksCut, topLinks } from './account-top-links';
import type { AccountWindow } from './account-window';

// The top links of an account's ranges, kept for the past hours and days, against the same
// sums read from every row each time: equal after each kind of write (the current day's, a
// late visit's, a link told or deleted), and after the day (hour) turns. A database of its own.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const OWNER = 'owner-top';

describe("an account's top links", () => {
  const own = ownAnalyticsDatabase('analytics_top_links');
  let db: DataSource;
  // The triggers tell the past by the clock: the windows are read at the clock's time.
  const now = Date.now();
  const day = (daysAgo: number) => new Date(now - daysAgo * DAY).toISOString().slice(0, 10);
  const hour = (hoursAgo: number) =>
    new Date(Math.floor(now / HOUR) * HOUR - hoursAgo * HOUR).toISOString();

  /** As ingest raises them: the link's visits on a day, and in an hour of the last two days. */
  const visit = async (code: string, visits: number, at: { day?: number; hour?: number }) => {
    if (at.day !== undefined) {
      await db.query(
        `INSERT INTO analytics.account_breakdowns AS b (owner_id, day, dimension, value, visits)
         VALUES ($1, $2, 'link', $3, $4)
         ON CONFLICT (owner_id, day, dimension, value) DO UPDATE SET visits = b.visits + $4`,
        [OWNER, day(at.day), code, visits],
      );
    }
    if (at.hour !== undefined) {
      await db.query(
        `INSERT INTO analytics.account_breakdown_hours AS b (owner_id, hour, dimension, value, visits)
         VALUES ($1, $2, 'link', $3, $4)
         ON CONFLICT (owner_id, hour, dimension, value) DO UPDATE SET visits = b.visits + $4`,
        [OWNER, hour(at.hour), code, visits],
      );
    }
  };

  /** Every row of the window, summed now: what the kept sums must equal. */
  const summed = async (window: AccountWindow): Promise<Array<[string, number]>> => {
    const hourly = window.interval === 'hour';
    const rows: Array<{ code: string; visits: number }> = await db.query(
      hourly
        ? `SELECT value AS code, sum(visits)::int AS visits FROM analytics.account_breakdown_hours
           WHERE owner_id = $1 AND dimension = 'link' AND hour >= $2 AND hour <= $3 GROUP BY 1`
        : `SELECT value AS code, sum(visits)::int AS visits FROM analytics.account_breakdowns
           WHERE owner_id = $1 AND dimension = 'link' AND ($4 OR day >= $2::timestamptz::date)
             AND day <= $3::timestamptz::date GROUP BY 1`,
      [
        OWNER,
        new Date(window.from),
        new Date(window.to),
        ...(hourly ? [] : [window.range === 'all']),
      ],
    );
    return rows
      .filter((row) => row.visits > 0)
      .map((row): [string, number] => [row.code, row.visits])
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, 10);
  };

  const ranges = ['24h', '7d', '30d', 'all'] as const;
  /** Each range's top links, kept first as a read does, then read from the kept sums. */
  const read = async (at = now) => {
    const answers: Record<string, Array<[string, number]>> = {};
    for (const range of ranges) {
      const window = statsWindow(range, at, { createdAt: null, firstVisit: null });
      const cut = linksCut(window)!;
      await keepPastLinks(db, OWNER, cut);
      answers[range] = [...(await topLinks(db, OWNER, window))];
      // Read whole (the window as a period's) they are the same.
      expect(answers[range]).toEqual(await summed(window));
    }
    return answers;
  };
  const built = async (): Promise<Array<{ span: string; epoch: number }>> =>
    db.query(
      `SELECT span, epoch::int FROM analytics.account_top_links_built
       WHERE owner_id = $1 ORDER BY span`,
      [OWNER],
    );

  beforeAll(async () => {
    db = await own.open();
  });

  afterAll(async () => {
    await own.close();
  });

  it('equal the sums of every row, whatever is written, and are kept while no past row changes', async () => {
    // Twelve links over 40 days and the last two days' hours, ties among them.
    for (let link = 0; link < 12; link += 1) {
      const code = `Link${String(link).padStart(3, '0')}`;
      for (const daysAgo of [0, 1, 3, 6, 7, 20, 29, 35]) {
        await visit(code, 1 + ((link * 7 + daysAgo) % 5), { day: daysAgo });
      }
      for (const hoursAgo of [0, 1, 5, 22, 23, 30]) {
        await visit(code, 1 + ((link * 3 + hoursAgo) % 4), { hour: hoursAgo });
      }
    }
    const first = await read();
    expect(first['7d']).toHaveLength(10);
    const kept = await built();
    expect(kept.map((row) => row.span)).toEqual(['24h', '30d', '7d', 'all']);

    // The current day's and hour's visits are read each time; the days kept stay kept (the
    // hour's would not if the clock's hour turned meanwhile: not compared).
    await visit('Link011', 50, { day: 0, hour: 0 });
    const current = await read();
    expect(current['7d']![0]![0]).toBe('Link011');
    expect(current['24h']![0]![0]).toBe('Link011');
    // A link of the current part only, above every kept one.
    await visit('Fresh001', 120, { day: 0, hour: 0 });
    const fresh = await read();
    for (const range of ranges) expect(fresh[range]![0]![0]).toBe('Fresh001');
    const days = (rows: Array<{ span: string; epoch: number }>) =>
      rows.filter((row) => row.span !== '24h');
    expect(days(await built())).toEqual(days(kept));

    // A late visit (yesterday's, an hour before this one) changes the past: kept again.
    await visit('Link005', 300, { day: 1, hour: 1 });
    const late = await read();
    expect(late['30d']![0]).toEqual(['Link005', expect.any(Number)]);
    expect(late['24h']![0]![0]).toBe('Link005');
    const rebuilt = await built();
    expect(rebuilt.every((row, i) => row.epoch > kept[i]!.epoch)).toBe(true);

    // A link leaves the account (its rows taken off, those at zero deleted).
    await db.query(
      `UPDATE analytics.account_breakdowns SET visits = 0
       WHERE owner_id = $1 AND dimension = 'link' AND value = 'Link005'`,
      [OWNER],
    );
    await db.query(
      `DELETE FROM analytics.account_breakdown_hours
       WHERE owner_id = $1 AND dimension = 'link' AND value = 'Link005'`,
      [OWNER],
    );
    const gone = await read();
    for (const range of ranges) {
      expect(gone[range]!.map(([code]) => code)).not.toContain('Link005');
    }

    // The next day: the window moves, the past is summed up to the new day.
    await read(now + DAY);
  });

  it("keeps the 24-hour range's visitors of the day before; counts them whole when not kept", async () => {
    const window = statsWindow('24h', now, { createdAt: null, firstVisit: null });
    const cut = linksCut(window)!;
    const seen = async (visitor: number, hoursAgo: number): Promise<void> => {
      await db.query(
        `INSERT INTO analytics.account_visitor_days AS v (owner_id, day, visitor, last_seen)
         VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3, $2)
         ON CONFLICT (owner_id, day, visitor) DO UPDATE SET last_seen = EXCLUDED.last_seen
           WHERE v.last_seen < EXCLUDED.last_seen`,
        [OWNER, new Date(now - hoursAgo * HOUR), Buffer.from([visitor])],
      );
    };
    // As the rollup stats count them from every row.
    const counted = async () => {
      const [row]: Array<{ n: number }> = await db.query(
        `SELECT count(*)::int AS n FROM analytics.account_visitor_days
         WHERE owner_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date
           AND day <= ($3::timestamptz AT TIME ZONE 'UTC')::date AND last_seen >= $2`,
        [OWNER, new Date(window.from), new Date(window.to)],
      );
      return row!.n;
    };
    // Visitors from just now to two days ago: some of the day before inside the window, some
    // not, some seen on both days.
    for (let visitor = 0; visitor < 40; visitor += 1) await seen(visitor, (visitor * 53) % 47);
    await keepPastLinks(db, OWNER, cut);
    const kept = await keptVisitors(db, OWNER, cut);
    expect(kept).toBe(await counted());
    expect(kept).toBeGreaterThan(0);
    // A visitor of the current day: counted without keeping again.
    await seen(77, 0);
    expect(await keptVisitors(db, OWNER, cut)).toBe(await counted());
    // A late visit (the day before, within the window) writes its link's hour: not kept.
    await seen(78, 20);
    await visit('Link003', 1, { hour: 20 });
    expect(await keptVisitors(db, OWNER, cut)).toBeNull();
    await keepPastLinks(db, OWNER, cut);
    expect(await keptVisitors(db, OWNER, cut)).toBe(await counted());
    // Kept by a release that kept no visitors: kept again, though nothing else changed.
    await db.query(
      `UPDATE analytics.account_top_links_built SET visitors = NULL
       WHERE owner_id = $1 AND span = '24h'`,
      [OWNER],
    );
    expect(await keptVisitors(db, OWNER, cut)).toBeNull();
    await keepPastLinks(db, OWNER, cut);
    expect(await keptVisitors(db, OWNER, cut)).toBe(await counted());
    // The day ranges keep none.
    const days = linksCut(statsWindow('7d', now, { createdAt: null, firstVisit: null }))!;
    await keepPastLinks(db, OWNER, days);
    expect(await keptVisitors(db, OWNER, days)).toBeNull();
  });

  it('reads a range whose past is not kept (or kept at another epoch) from every row', async () => {
    await db.query('DELETE FROM analytics.account_top_links_built WHERE owner_id = $1', [OWNER]);
    for (const range of ranges) {
      const window = statsWindow(range, now, { createdAt: null, firstVisit: null });
      expect([...(await topLinks(db, OWNER, window))]).toEqual(await summed(window));
    }
    // Kept, then a past row written: not used until kept again.
    const window = statsWindow('30d', now, { createdAt: null, firstVisit: null });
    await keepPastLinks(db, OWNER, linksCut(window)!);
    await visit('Link002', 500, { day: 2 });
    const answer = [...(await topLinks(db, OWNER, window))];
    expect(answer[0]).toEqual(['Link002', expect.any(Number)]);
    expect(answer).toEqual(await summed(window));
  });
});
