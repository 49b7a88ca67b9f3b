import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import pino from 'pino';
import { Client } from 'pg';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import type { StatsRange } from '@shortener/contracts';
import { testServers, waitFor } from '@shortener/testkit';
import { StatsRepository } from '../stats/stats.repository';
import type { VisitCursor } from '../visits/visit-cursor';
import { VisitsRepository } from '../visits/visits.repository';
import { CreateAnalytics1763950000000 } from './1763950000000-create-analytics';
import { VisitStats1764000000000 } from './1764000000000-visit-stats';
import { AliasCodes1796100000000 } from './1796100000000-alias-codes';
import { copyBudgetMs, PartitionVisits1796200000000 } from './1796200000000-partition-visits';
import { VisitUtm1796350000000 } from './1796350000000-visit-utm';
import { AccountStats1796700000000 } from './1796700000000-account-stats';
import { VisitorCounts1796800000000 } from './1796800000000-visitor-counts';

// An analytics database of the release before (a database of its own per test, made and
// dropped here) with visits in it, migrated to monthly partitions: what the API reads answers
// the same, and visits stored and deleted by the release before while the migration runs are
// all there afterwards, once each.

const BEFORE = [CreateAnalytics1763950000000, VisitStats1764000000000, AliasCodes1796100000000];
const AFTER = [
  ...BEFORE,
  PartitionVisits1796200000000,
  VisitUtm1796350000000,
  AccountStats1796700000000,
  VisitorCounts1796800000000,
];

/** The release before's INSERT (its ingest.repository.ts), to the letter. */
const PREVIOUS_INSERT = `
  INSERT INTO analytics.visits
    (id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country)
  SELECT * FROM unnest(
    $1::uuid[], $2::varchar[], $3::timestamptz[], $4::varchar[], $5::text[], $6::text[],
    $7::text[], $8::boolean[], $9::text[], $10::text[]
  )
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;

/**
 * The release before's delete of a link's visits, a slice at a time (purges.repository.ts),
 * answering the ids it deleted.
 */
const PREVIOUS_DELETE = `
  DELETE FROM analytics.visits WHERE id IN (
    SELECT id FROM analytics.visits WHERE url_id = ANY($1::varchar[]) LIMIT $2
  ) RETURNING id`;

const PLATFORMS = ['Windows', 'iOS', 'Android', 'Mac OS', 'Linux'];
const BROWSERS = ['Chrome', 'Mobile Safari', 'Firefox', 'Edge'];
const REFERRERS = [null, 'https://news.example/a', 'https://mail.example/', 'not a url'];
const IPS = ['8.8.8.8', '1.1.1.1', '81.2.69.160', '203.0.113.7', '2001:4860:4860::8888'];
const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)]!;

interface Visit {
  id: string;
  urlId: string;
  createdAt: string;
}

/** Visits of a link at the given times, with varied devices, places and referrers. */
function visitsAt(urlId: string, times: readonly string[]): Visit[] {
  return times.map((createdAt) => ({ id: randomUUID(), urlId, createdAt }));
}

async function insertPrevious(
  db: { query(sql: string, values: unknown[]): Promise<unknown> },
  visits: readonly Visit[],
): Promise<void> {
  await db.query(PREVIOUS_INSERT, [
    visits.map((visit) => visit.id),
    visits.map((visit) => visit.urlId),
    visits.map((visit) => visit.createdAt),
    visits.map(() => pick(IPS)),
    visits.map(() => pick(PLATFORMS)),
    visits.map(() => pick(BROWSERS)),
    visits.map(() => pick(REFERRERS)),
    visits.map(() => randomInt(10) === 0),
    visits.map(() => pick(['desktop', 'mobile', 'tablet'])),
    visits.map(() => pick(['US', 'GB', 'DE', 'ZZ'])),
  ]);
}

/** Times spread over the given UTC months, several at the very same instant (cursor ties). */
function timesIn(months: readonly string[], perMonth: number): string[] {
  const times: string[] = [];
  for (const month of months) {
    const start = Date.parse(`${month}-01T00:00:00Z`);
    for (let i = 0; i < perMonth; i += 1) {
      times.push(new Date(start + randomInt(27 * 24 * 3600) * 1000).toISOString());
    }
    const tie = new Date(start + 5 * 24 * 3600 * 1000).toISOString();
    times.push(tie, tie, tie);
  }
  return times;
}

describe('the visits partitioning migration', () => {
  const admin = new Client({ connectionString: testServers.databaseUrl });
  const made: string[] = [];
  const NOW = Date.parse('2026-11-26T12:00:00Z');

  /** A database of its own, and a data source on it with the given migrations run. */
  const newDatabase = async (): Promise<string> => {
    const name = `analytics_partition_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    made.push(name);
    const url = new URL(testServers.databaseUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const open = async (url: string, migrations: Array<new () => object>) => {
    const database = new ManagedDataSource({
      url,
      schema: 'analytics',
      entities: [],
      migrations,
      logger: pino({ level: 'silent' }),
      applicationName: 'partition-visits-test',
      migrate: true,
    });
    await database.start();
    return database;
  };

  /** Everything the API reads of a link's visits: stats of each range, pages, CSV rows. */
  const readAll = async (database: ManagedDataSource, codes: readonly string[]) => {
    const visits = new VisitsRepository(database);
    const stats = new StatsRepository(database);
    const read: Record<string, unknown> = { counts: await visits.counts(codes) };
    for (const code of codes) {
      const pages: unknown[] = [];
      let cursor: VisitCursor | null = null;
      for (;;) {
        const page = await visits.page(code, 40, cursor);
        pages.push(page.map((stored) => stored.visit));
        if (page.length < 40) break;
        cursor = page.at(-1)!.cursor;
      }
      const csv: unknown[] = [];
      let after: { createdAt: Date; id: string } | null = null;
      for (;;) {
        const rows = await stats.exportPage(code, after, 70);
        csv.push(...rows);
        if (rows.length < 70) break;
        after = { createdAt: rows.at(-1)!.created_at, id: rows.at(-1)!.id };
      }
      const ranges: Partial<Record<StatsRange, unknown>> = {};
      for (const range of ['24h', '7d', '30d', 'all'] as const) {
        ranges[range] = await stats.stats(code, range, Date.parse('2026-01-01T00:00:00Z'), NOW);
      }
      read[code] = { pages, csv, ranges };
    }
    return read;
  };

  beforeAll(async () => {
    await admin.connect();
  });

  afterAll(async () => {
    for (const name of made) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('leaves stats, visitor pages and the CSV export answering the same', async () => {
    const url = await newDatabase();
    // Visits stored before the stats existed, backfilled into the rollups by their migration,
    // so the stats read real rollups of these very visits.
    const first = await open(url, [CreateAnalytics1763950000000]);
    const codes = ['AbC1234', 'XyZ9876', 'an-alias-of-more-than-sixteen'];
    const visits = [
      ...visitsAt(codes[0]!, timesIn(['2025-12', '2026-09', '2026-10', '2026-11'], 90)),
      ...visitsAt(codes[1]!, timesIn(['2026-11'], 30)),
    ];
    await first.dataSource.query(
      `INSERT INTO analytics.visits (id, url_id, created_at, ip_address, platform, browser, referrer)
       SELECT * FROM unnest($1::uuid[], $2::varchar[], $3::timestamptz[], $4::varchar[],
                            $5::text[], $6::text[], $7::text[])`,
      [
        visits.map((visit) => visit.id),
        visits.map((visit) => visit.urlId),
        visits.map((visit) => visit.createdAt),
        visits.map(() => pick(IPS)),
        visits.map(() => pick(PLATFORMS)),
        visits.map(() => pick(BROWSERS)),
        visits.map(() => pick(REFERRERS)),
      ],
    );
    await first.close();
    const previous = await open(url, BEFORE);
    // And some stored by the release before's own INSERT, on an alias.
    await insertPrevious(previous.dataSource, visitsAt(codes[2]!, timesIn(['2026-10'], 20)));
    // This release reads a visit's campaign columns, added after the partitioning: the table
    // of before is given them, empty, so that its reads compare with those after.
    await previous.dataSource.query(
      `ALTER TABLE analytics.visits
         ADD COLUMN utm_source text, ADD COLUMN utm_medium text, ADD COLUMN utm_campaign text`,
    );
    // It reads unique visitors from the day counts (VisitorCounts, after it too): counted here
    // for the reads of before, dropped for the migration to make and fill again.
    await previous.dataSource.query(
      `CREATE TABLE analytics.visitor_counts AS
       SELECT url_id, day, count(*) AS visitors FROM analytics.visitor_days GROUP BY 1, 2`,
    );
    const before = await readAll(previous, codes);
    await previous.dataSource.query('DROP TABLE analytics.visitor_counts');
    await previous.close();

    const current = await open(url, AFTER);
    try {
      const [layout]: unknown[] = await current.dataSource.query(
        "SELECT relkind FROM pg_class WHERE oid = 'analytics.visits'::regclass",
      );
      expect(layout).toEqual({ relkind: 'p' });
      const partitions: Array<{ name: string }> = await current.dataSource.query(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'analytics.visits'::regclass ORDER BY 1`,
      );
      // Each month with visits, and the current one (by the clock) and three ahead.
      const names = partitions.map((row) => row.name);
      for (const month of ['2025_12', '2026_09', '2026_10', '2026_11']) {
        expect(names).toContain(`visits_${month}`);
      }
      const now = new Date();
      const current3 = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1));
      expect(names).toContain(
        `visits_${current3.getUTCFullYear()}_${String(current3.getUTCMonth() + 1).padStart(2, '0')}`,
      );
      const after = await readAll(current, codes);
      expect(after).toEqual(before);
      // Nothing left of the migration's scaffolding; every event id is known to the dedup table.
      const [left]: unknown[] = await current.dataSource.query(
        `SELECT to_regclass('analytics.visits_unpartitioned') AS old,
                to_regclass('analytics.visits_partitioned') AS building,
                (SELECT count(*)::int FROM analytics.visit_ids) AS ids,
                (SELECT count(*)::int FROM analytics.visits) AS visits`,
      );
      expect(left).toEqual({ old: null, building: null, ids: 428, visits: 428 });
    } finally {
      await current.close();
    }
  });

  it('copies a slice again when PostgreSQL aborts it to break a deadlock with the serving release', async () => {
    const url = await newDatabase();
    const previous = await open(url, BEFORE);
    const visits = visitsAt('DeadLck', timesIn(['2026-11'], 300));
    await insertPrevious(previous.dataSource, visits);
    const ids = visits.map((visit) => visit.id).sort();

    // A transaction of the serving release holds the 50th row, which the copy's first slice
    // (rows 1-100, locked in id order) then waits for; it goes on to want the first row, which
    // the copy holds: a deadlock. With its own check put off, PostgreSQL's check in the copy's
    // session finds it first and aborts the copy.
    const holder = new Client({ connectionString: url });
    await holder.connect();
    await holder.query("SET deadlock_timeout = '30s'");
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM analytics.visits WHERE id = $1 FOR UPDATE', [ids[49]]);

    const migration = new PartitionVisits1796200000000(100);
    const runner = previous.dataSource.createQueryRunner();
    await runner.connect();
    const migrated = migration.up(runner).then(
      () => null,
      (error: unknown) => error,
    );
    try {
      await waitFor(
        async () => {
          // Within a transaction the activity view is a snapshot, taken again when cleared.
          await holder.query('SELECT pg_stat_clear_snapshot()');
          const { rows } = await holder.query(
            `SELECT 1 FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND query LIKE '%WITH slice AS%'`,
          );
          return rows.length > 0;
        },
        { what: "the copy waiting for the holder's row", intervalMs: 20 },
      );
      await holder.query('SELECT id FROM analytics.visits WHERE id = $1 FOR UPDATE', [ids[0]]);
      await holder.query('COMMIT');
      expect(await migrated).toBeNull();
    } finally {
      await migrated;
      await runner.release();
      await holder.end();
    }

    const rows: Array<{ id: string }> = await previous.dataSource.query(
      'SELECT id FROM analytics.visits ORDER BY id',
    );
    expect(rows.map((row) => row.id)).toEqual(ids);
    expect(
      await previous.dataSource.query('SELECT count(*)::int AS ids FROM analytics.visit_ids'),
    ).toEqual([{ ids: ids.length }]);
    await previous.close();
  });

  it('stops a run when its copy budget is spent, saying how far it got, and the next run resumes there: every visit once', async () => {
    const url = await newDatabase();
    const previous = await open(url, BEFORE);
    const first = visitsAt('BudgetLnk', timesIn(['2026-10', '2026-11'], 400));
    for (let start = 0; start < first.length; start += 500) {
      await insertPrevious(previous.dataSource, first.slice(start, start + 500));
    }
    const runner = previous.dataSource.createQueryRunner();
    const copiedSoFar = async () =>
      Number(
        (
          (await runner.query('SELECT copied FROM analytics.visits_copy_progress')) as Array<{
            copied: string;
          }>
        )[0]?.copied,
      );
    const late = visitsAt('BudgetLnk', timesIn(['2026-11'], 50));
    try {
      await runner.connect();
      // A budget of 1 ms: each run copies one slice of 100 and stops.
      await expect(new PartitionVisits1796200000000(100, 1).up(runner)).rejects.toThrow(
        /^analytics\.visits partitioning: copied 100 visits in \d+ s \(\d+\/s; 100 so far, .*\) and stopped at PARTITION_COPY_SECONDS: run the analytics migration without it/,
      );
      expect(await copiedSoFar()).toBe(100);
      await expect(new PartitionVisits1796200000000(100, 1).up(runner)).rejects.toThrow(
        /copied 100 visits .*200 so far/,
      );
      expect(await copiedSoFar()).toBe(200);
      // Stored by the release before between two runs: the mirror trigger copies them.
      await insertPrevious(previous.dataSource, late);
      await new PartitionVisits1796200000000(100, Infinity).up(runner);
    } finally {
      await runner.release();
    }
    const rows: Array<{ id: string }> = await previous.dataSource.query(
      'SELECT id FROM analytics.visits ORDER BY id',
    );
    expect(rows.map((row) => row.id)).toEqual([...first, ...late].map((visit) => visit.id).sort());
    const [left] = await previous.dataSource.query<
      Array<{ progress: string | null; relkind: string }>
    >(
      "SELECT to_regclass('analytics.visits_copy_progress') AS progress, relkind FROM pg_class WHERE oid = 'analytics.visits'::regclass",
    );
    expect(left).toEqual({ progress: null, relkind: 'p' });
    await previous.close();
  });

  it('reads its copy budget from PARTITION_COPY_SECONDS, refusing a value that is not a positive number', () => {
    expect(copyBudgetMs({})).toBe(Infinity);
    expect(copyBudgetMs({ PARTITION_COPY_SECONDS: '600' })).toBe(600_000);
    for (const bad of ['0', '-5', 'ten']) {
      expect(() => copyBudgetMs({ PARTITION_COPY_SECONDS: bad })).toThrow(
        `PARTITION_COPY_SECONDS must be a positive number of seconds, not "${bad}"`,
      );
    }
  });

  it('keeps every visit the release before stores and deletes while it runs, once', async () => {
    const url = await newDatabase();
    const previous = await open(url, BEFORE);
    const kept = 'KeptLnk';
    const gone = 'GoneLnk';
    const stored = visitsAt(kept, timesIn(['2026-10', '2026-11'], 2000));
    const doomed = visitsAt(gone, timesIn(['2026-11'], 1500));
    for (let start = 0; start < stored.length; start += 500) {
      await insertPrevious(previous.dataSource, stored.slice(start, start + 500));
    }
    await insertPrevious(previous.dataSource, doomed);

    // The release before goes on storing visits (some redelivered) and deleting a link's
    // visits while the migration copies in slices of 100.
    const writer = new Client({ connectionString: url });
    await writer.connect();
    let migrating = true;
    const late: Visit[] = [];
    const deleted = new Set<string>();
    const writing = (async () => {
      let deleting = true;
      while (migrating) {
        const fresh = visitsAt(kept, [new Date(NOW - randomInt(3600_000)).toISOString()]);
        const again = stored.slice(randomInt(stored.length - 5)).slice(0, 5);
        try {
          await insertPrevious(writer, [...fresh, ...again]);
          late.push(...fresh);
        } catch (error) {
          // A deadlock with the copy, which PostgreSQL broke by aborting this side: the batch
          // is retried, as its ingest would.
          if ((error as { code?: string }).code === '40P01') continue;
          // After the swap the release before's ON CONFLICT (id) has no unique key to name:
          // it is refused as a whole (42P10), which its ingest retries, so nothing is lost.
          expect((error as { code?: string }).code).toBe('42P10');
          break;
        }
        // Deleting while the rows are being copied (the mirror trigger in place), a few at a
        // time, so some go before their slice is copied and some after.
        const { rows: mirroring } = await writer.query(
          "SELECT 1 FROM pg_trigger WHERE tgname = 'visits_mirror'",
        );
        if (deleting && mirroring.length > 0) {
          try {
            const result = await writer.query<{ id: string }>(PREVIOUS_DELETE, [[gone], 10]);
            for (const row of result.rows) deleted.add(row.id);
            deleting = result.rows.length > 0;
          } catch (error) {
            // Its delete takes a link's rows in no set order, the copy takes them by event id:
            // they can deadlock, and PostgreSQL aborts one side. For the delete, that is a
            // round that deleted nothing; the next one deletes again. (The copy, aborted,
            // copies its slice again: PartitionVisits1796200000000.)
            expect((error as { code?: string }).code).toBe('40P01');
          }
        }
      }
    })();
    const migration = new PartitionVisits1796200000000(100);
    const runner = previous.dataSource.createQueryRunner();
    try {
      await runner.connect();
      await migration.up(runner);
    } finally {
      migrating = false;
      await runner.release();
      await writing;
      await writer.end();
    }
    expect(late.length).toBeGreaterThan(0);

    const rows: Array<{ id: string; url_id: string }> = await previous.dataSource.query(
      'SELECT id, url_id FROM analytics.visits ORDER BY id',
    );
    const expected = [...stored, ...late].map((visit) => visit.id).sort();
    expect(rows.filter((row) => row.url_id === kept).map((row) => row.id)).toEqual(expected);
    // A deleted visit never comes back; the others of that link are all there.
    expect(deleted.size).toBeGreaterThan(0);
    const remaining = doomed.filter((visit) => !deleted.has(visit.id)).map((visit) => visit.id);
    expect(rows.filter((row) => row.url_id === gone).map((row) => row.id)).toEqual(
      remaining.sort(),
    );
    const ids: Array<{ id: string }> = await previous.dataSource.query(
      'SELECT id FROM analytics.visit_ids WHERE id = ANY($1::uuid[])',
      [expected],
    );
    expect(ids).toHaveLength(expected.length);
    expect(migration.locks.map((lock) => lock.step)).toEqual(['mirror trigger', 'swap']);
    await previous.close();
  });
});
