import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { Client } from 'pg';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { testServers } from '@shortener/testkit';
import type { VisitCursor } from '../visits/visit-cursor';
import { addMonths, createMonth, monthOf, partitionName } from '../visits/visit-partitions';
import { VisitsRepository } from '../visits/visits.repository';
import { AscendingVisitIndex1797200000000 } from './1797200000000-ascending-visit-index';
import { analyticsMigrations } from './index';
import { runnerTransact } from './locked-step';

// An analytics database of the release before (a database of its own per test), with visits
// in several months, migrated to the ascending index of a link's visits in time while another
// connection keeps storing visits: every month's index rebuilt and valid, nothing lost from it,
// the visitor log reading the same pages through it.

const BEFORE = analyticsMigrations.filter((m) => m !== AscendingVisitIndex1797200000000);
const ASCENDING = '(url_id, created_at, id)';
const DESCENDING = '(url_id, created_at DESC, id DESC)';

interface IndexRow {
  table: string;
  index: string;
  key: string;
  valid: boolean;
}

describe('the ascending visit index migration', () => {
  const admin = new Client({ connectionString: testServers.databaseUrl });
  const databases: string[] = [];
  const thisMonth = monthOf(new Date());
  /** Months with visits: the current one and the two after it (made by the partitioning). */
  const months = [0, 1, 2].map((ahead) => addMonths(thisMonth, ahead));

  const newDatabase = async (): Promise<string> => {
    const name = `analytics_index_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    databases.push(name);
    const url = new URL(testServers.databaseUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const open = async (url: string, migrations: ReadonlyArray<new () => object>) => {
    const database = made(url, migrations);
    await database.start();
    return database;
  };
  function made(url: string, migrations: ReadonlyArray<new () => object>): ManagedDataSource {
    return new ManagedDataSource({
      url,
      schema: 'analytics',
      entities: [],
      migrations: [...migrations],
      logger: pino({ level: 'silent' }),
      applicationName: 'ascending-index-test',
      migrate: true,
    });
  }

  /** `count` visits of `code`, spread over the months, ties at one instant included. */
  const store = async (db: ManagedDataSource | Client, code: string, count: number) => {
    const times = Array.from({ length: count }, (_, i) => {
      const month = months[i % months.length]!;
      return new Date(month.getTime() + (i % 7 === 0 ? 0 : (i * 7_919_000) % (27 * 86_400_000)));
    });
    const sql = `INSERT INTO analytics.visits (id, url_id, created_at, ip_address, platform, browser)
      SELECT id, $2, at, '203.0.113.9', 'iOS', 'Mobile Safari'
      FROM unnest($1::uuid[], $3::timestamptz[]) AS v(id, at)`;
    const params = [times.map(() => randomUUID()), code, times.map((at) => at.toISOString())];
    if (db instanceof Client) await db.query(sql, params);
    else await db.dataSource.query(sql, params);
  };

  /** The index of a link's visits in time on the parent and on every month's table. */
  const indexes = async (db: ManagedDataSource): Promise<IndexRow[]> =>
    db.dataSource.query(
      `SELECT t.relname AS table, i.relname AS index, x.indisvalid AS valid,
              substring(pg_get_indexdef(i.oid) FROM '\\(url_id.*\\)$') AS key
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       WHERE n.nspname = 'analytics' AND t.relname ~ '^visits(_[0-9]{4}_[0-9]{2})?$'
         AND pg_get_indexdef(i.oid) LIKE '%(url_id, created_at%'
       ORDER BY 1, 2`,
    );

  const tables = async (db: ManagedDataSource): Promise<string[]> =>
    (
      await db.dataSource.query<Array<{ name: string }>>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'analytics.visits'::regclass ORDER BY 1`,
      )
    ).map((row) => row.name);

  /** One index a table, of the key given, valid; the parent's is visits_url_created_idx. */
  const expectOnly = async (db: ManagedDataSource, key: string) => {
    const found = await indexes(db);
    const names = await tables(db);
    expect(found.map((row) => row.table)).toEqual(['visits', ...names]);
    expect(found.every((row) => row.key === key && row.valid)).toBe(true);
    expect(found[0]!.index).toBe('visits_url_created_idx');
  };

  /** Every page of a link's visitor log, newest first. */
  const pages = async (db: ManagedDataSource, code: string) => {
    const visits = new VisitsRepository(db);
    const read: unknown[] = [];
    let cursor: VisitCursor | null = null;
    for (;;) {
      const page = await visits.page(code, 50, cursor);
      read.push(page.map((stored) => stored.visit._id));
      if (page.length < 50) return read;
      cursor = page.at(-1)!.cursor;
    }
  };

  /** How many of a link's visits a scan of the index finds (no sequential scan allowed). */
  const countByIndex = async (db: ManagedDataSource, code: string): Promise<number> => {
    const runner = db.dataSource.createQueryRunner();
    try {
      return await runnerTransact(runner)(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        await tx.query('SET LOCAL enable_bitmapscan = off');
        const plan = JSON.stringify(
          await tx.query(
            'EXPLAIN (FORMAT JSON) SELECT count(*) FROM analytics.visits WHERE url_id = $1',
            [code],
          ),
        );
        expect(plan).toContain('"Index Only Scan"');
        const [row] = (await tx.query(
          'SELECT count(*)::int AS n FROM analytics.visits WHERE url_id = $1',
          [code],
        )) as Array<{ n: number }>;
        return row!.n;
      });
    } finally {
      await runner.release();
    }
  };

  beforeAll(async () => {
    await admin.connect();
  });

  afterAll(async () => {
    for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('rebuilds every month ascending while visits are stored, losing none, pages read the same', async () => {
    const url = await newDatabase();
    const previous = await open(url, BEFORE);
    await store(previous, 'Popular', 3_000);
    await store(previous, 'Quieter', 300);
    await expectOnly(previous, DESCENDING);
    const before = await pages(previous, 'Popular');
    await previous.close();

    // The serving release stores visits of another link all along the migration.
    const writer = new Client({ connectionString: url });
    await writer.connect();
    let writing = true;
    let written = 0;
    const writes = (async () => {
      while (writing) {
        await store(writer, 'Writing', 20);
        written += 20;
      }
    })();
    const current = await open(url, analyticsMigrations);
    writing = false;
    await writes;
    await writer.end();
    try {
      await expectOnly(current, ASCENDING);
      expect(written).toBeGreaterThan(0);
      expect(await countByIndex(current, 'Writing')).toBe(written);
      expect(await countByIndex(current, 'Popular')).toBe(3_000);
      expect(await pages(current, 'Popular')).toEqual(before);
      // The newest-first page reads the ascending index backward.
      await current.dataSource.query('ANALYZE analytics.visits');
      const plan = JSON.stringify(
        await current.dataSource.query(
          `EXPLAIN (FORMAT JSON) SELECT id FROM analytics.visits WHERE url_id = $1
           ORDER BY created_at DESC, id DESC LIMIT 50`,
          ['Popular'],
        ),
      );
      expect(plan).toContain('"Scan Direction":"Backward"');
      expect(plan).not.toContain('"Sort"');
    } finally {
      await current.close();
    }
  });

  it('resumes a run cut short: a month left invalid is built again, a month made meanwhile has it', async () => {
    const url = await newDatabase();
    const previous = await open(url, BEFORE);
    await store(previous, 'Popular', 900);
    // What a run cut short leaves: the parent's index made, one month's build interrupted
    // (CREATE INDEX CONCURRENTLY leaves an invalid index), and a month made afterwards.
    await previous.dataSource.query(
      `CREATE INDEX visits_url_created_next_idx ON ONLY analytics.visits ${ASCENDING}`,
    );
    const cut = partitionName(months[1]!);
    await previous.dataSource.query(
      `CREATE INDEX ${cut}_url_created_asc_idx ON analytics.${cut} ${ASCENDING}`,
    );
    await previous.dataSource.query(
      `UPDATE pg_index SET indisvalid = false
       WHERE indexrelid = 'analytics.${cut}_url_created_asc_idx'::regclass`,
    );
    const later = addMonths(thisMonth, 6);
    const runner = previous.dataSource.createQueryRunner();
    try {
      expect(await createMonth(runnerTransact(runner), later)).toBe(true);
    } finally {
      await runner.release();
    }
    await previous.close();

    const current = await open(url, analyticsMigrations);
    try {
      await expectOnly(current, ASCENDING);
      expect(await tables(current)).toContain(partitionName(later));
      expect(await countByIndex(current, 'Popular')).toBe(900);
    } finally {
      await current.close();
    }
  });

  it('migrates while another instance waits for the migration lock', async () => {
    // Instances starting together wait for one another's migrations on an advisory lock. A
    // statement waiting on that lock holds a snapshot, and CREATE INDEX CONCURRENTLY waits for
    // every older snapshot to go: the waiting instance and the migrating one then waited for
    // each other for good (two analytics suites starting at once in CI).
    const url = await newDatabase();
    const previous = await open(url, BEFORE);
    await store(previous, 'Popular', 300);
    await previous.close();
    const holder = new Client({ connectionString: url });
    await holder.connect();
    await holder.query("SELECT pg_advisory_lock(hashtext('migrations:analytics'))");
    const [first, second] = [made(url, analyticsMigrations), made(url, analyticsMigrations)];
    let started = 'not yet';
    try {
      const starting = Promise.all([first.start(), second.start()]);
      // Both wait for the lock; let one of them have it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await holder.query("SELECT pg_advisory_unlock(hashtext('migrations:analytics'))");
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<'stuck'>((resolve) => {
        timer = setTimeout(() => resolve('stuck'), 20_000);
      });
      started = await Promise.race([starting.then(() => 'started'), stuck]);
      clearTimeout(timer);
      expect(started).toBe('started');
      await expectOnly(first, ASCENDING);
      expect(await countByIndex(second, 'Popular')).toBe(300);
    } finally {
      await holder.end();
      // Starts still waiting end when their connections go.
      if (started !== 'started') {
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1',
          [new URL(url).pathname.slice(1)],
        );
      }
      await Promise.all([first.close(), second.close()]);
    }
  }, 40_000);

  it('goes back to descending (down) and forward again, the swap waiting on nothing', async () => {
    const url = await newDatabase();
    const current = await open(url, analyticsMigrations);
    try {
      await store(current, 'Popular', 600);
      await expectOnly(current, ASCENDING);
      const migration = new AscendingVisitIndex1797200000000();
      const runner = current.dataSource.createQueryRunner();
      try {
        await migration.down(runner);
        await expectOnly(current, DESCENDING);
        expect(await countByIndex(current, 'Popular')).toBe(600);
        await migration.up(runner);
        await expectOnly(current, ASCENDING);
        expect(migration.swap?.tries).toBe(1);
        // Run again on what it made: nothing to do.
        await migration.up(runner);
        expect(migration.swap).toBeUndefined();
      } finally {
        await runner.release();
      }
      expect(await countByIndex(current, 'Popular')).toBe(600);
    } finally {
      await current.close();
    }
  });
});
