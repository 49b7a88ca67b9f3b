import type { ManagedDataSource } from '@shortener/chassis-postgres';
import { ownManagedAnalyticsDatabase } from '../migrations/own-database';
import { DELETE_SLICE, deleteLinkVisitsFrom, PurgesRepository } from './purges.repository';
import { createMonth, monthOf, partitionName, type Transact } from './visit-partitions';

// Deleting a link's visits from a month whose statistics were taken over dead rows, as a
// database without autovacuum keeps them (and any before autovacuum's next ANALYZE): each slice
// must read about as many rows as it deletes. A database of its own.

interface PlanNode {
  'Node Type': string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  Plans?: PlanNode[];
}

/** The rows a plan's scans read (kept or filtered out) and its joins compared away, all loops. */
function rowsHandled(node: PlanNode): number {
  const loops = node['Actual Loops'] ?? 1;
  const read = node['Node Type'].endsWith('Scan')
    ? (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)
    : 0;
  const own = (read + (node['Rows Removed by Join Filter'] ?? 0)) * loops;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsHandled(child), 0);
}

describe("a deleted link's visits", () => {
  const own = ownManagedAnalyticsDatabase('analytics_purges');
  let database: ManagedDataSource;
  const LINK = 'purgeMe';
  const OTHER = 'keepMe1';
  const query = <T>(sql: string, parameters?: unknown[]): Promise<T> =>
    database.dataSource.query(sql, parameters);

  /** `count` visits of `code`, the first `from` hundredths of a second ago, then older. */
  const addVisits = (code: string, count: number, from: number) =>
    query(
      `WITH rows AS (
         SELECT gen_random_uuid() AS id, now() - make_interval(secs => g / 100.0) AS created_at
         FROM generate_series($2::int, $2::int + $3::int - 1) g
       ),
       ids AS (INSERT INTO analytics.visit_ids (id) SELECT id FROM rows)
       INSERT INTO analytics.visits (id, url_id, created_at, ip_address, platform, browser)
       SELECT id, $1, created_at, '203.0.113.7', 'Linux', 'Firefox' FROM rows`,
      [code, from, count],
    );

  beforeAll(async () => {
    database = await own.open();
    const transact: Transact = (work) => database.dataSource.transaction((db) => work(db));
    // This month, and the one before should the visits (up to 20 minutes back) reach into it.
    await createMonth(transact, new Date(Date.now() - 3_600_000));
    await createMonth(transact, new Date());
    // The month's statistics taken over dead rows: PostgreSQL then takes it for a few rows,
    // whatever it holds later.
    await addVisits(LINK, 4 * DELETE_SLICE, 0);
    await query('DELETE FROM analytics.visits');
    await query('DELETE FROM analytics.visit_ids');
    await addVisits(LINK, 5, 0);
    await query('ANALYZE analytics.visits');
    await addVisits(LINK, 3 * DELETE_SLICE, 5);
    await addVisits(OTHER, DELETE_SLICE, 100_000);
  }, 120_000);

  afterAll(() => own.close());

  it('go a slice at a time, each found where it lies, however stale the statistics', async () => {
    const table = partitionName(monthOf(new Date()));
    // Explained in a transaction rolled back: the slice stays for the deletion below.
    let explained: PlanNode | undefined;
    await database.dataSource
      .transaction(async (db) => {
        const rows: { 'QUERY PLAN': Array<{ Plan: PlanNode }> }[] = await db.query(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${deleteLinkVisitsFrom(table)}`,
          [[LINK], DELETE_SLICE],
        );
        explained = rows[0]!['QUERY PLAN'][0]!.Plan;
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(explained).toBeDefined();
    // The slice read and each of its rows and ids found: a few times the slice, not the 400
    // million comparisons of the slice with every row of the month that a join by key made.
    expect(rowsHandled(explained!)).toBeLessThan(10 * DELETE_SLICE);

    const purges = new PurgesRepository(database);
    expect(await purges.deleteLinks([LINK])).toBe(3 * DELETE_SLICE + 5);
    const [left] = await query<{ link: number; other: number; ids: number }[]>(
      `SELECT count(*) FILTER (WHERE url_id = $1)::int AS link,
              count(*) FILTER (WHERE url_id = $2)::int AS other,
              (SELECT count(*)::int FROM analytics.visit_ids) AS ids
       FROM analytics.visits`,
      [LINK, OTHER],
    );
    expect(left).toEqual({ link: 0, other: DELETE_SLICE, ids: DELETE_SLICE });
    // Safe to repeat.
    expect(await purges.deleteLinks([LINK])).toBe(0);
  }, 120_000);
});
