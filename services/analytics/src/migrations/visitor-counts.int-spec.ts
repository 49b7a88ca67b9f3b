import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { testServers } from '@shortener/testkit';
import { analyticsMigrations } from '.';
import { VisitorCounts1796800000000 } from './1796800000000-visitor-counts';

// A database of its own (made and dropped here), migrated up to the release before the visitor
// counts, with visitor-days stored; then the counts' migration, and the writes ingest, a link's
// deletion and an account's recount make.

type Counted = { key: string; day: string; visitors: number };

describe('the visitor counts', () => {
  const name = `analytics_visitor_counts_${randomBytes(4).toString('hex')}`;
  const url = new URL(testServers.databaseUrl);
  url.pathname = `/${name}`;
  const admin = new Client({ connectionString: testServers.databaseUrl });
  let source: DataSource | undefined;

  const migrate = async (migrations: Array<new () => object>): Promise<DataSource> => {
    const next = new DataSource({
      type: 'postgres',
      url: url.toString(),
      migrations,
      migrationsTableName: 'migrations',
      migrationsTransactionMode: 'each',
    });
    await next.initialize();
    await next.query('CREATE SCHEMA IF NOT EXISTS analytics');
    await next.runMigrations({ transaction: 'each' });
    return next;
  };

  /** The counts, and the visitor-days counted one by one: they must be the same. */
  const both = async (db: DataSource, rows: string, counts: string, key: string) => {
    const read = (sql: string): Promise<Counted[]> =>
      db.query(`SELECT ${key} AS key, to_char(day, 'YYYY-MM-DD') AS day, visitors::int
                FROM (${sql}) AS t ORDER BY 1, 2`);
    return {
      counted: await read(`SELECT ${key}, day, visitors FROM analytics.${counts}`),
      rows: await read(
        `SELECT ${key}, day, count(*) AS visitors FROM analytics.${rows} GROUP BY 1, 2`,
      ),
    };
  };

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  });

  afterAll(async () => {
    await source?.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('are filled from the visitor-days stored, then kept by every insert and delete', async () => {
    const at = analyticsMigrations.indexOf(VisitorCounts1796800000000);
    const old = await migrate(analyticsMigrations.slice(0, at));
    const visitor = (n: number) => Buffer.from([n]);
    for (const [code, day, who] of [
      ['AbC1234', '2026-11-20', 1],
      ['AbC1234', '2026-11-20', 2],
      ['AbC1234', '2026-11-21', 1],
      ['XyZ9876', '2026-11-21', 3],
    ] as const) {
      await old.query(
        `INSERT INTO analytics.visitor_days (url_id, day, visitor, last_seen)
         VALUES ($1, $2, $3, $2::date + time '10:00')`,
        [code, day, visitor(who)],
      );
    }
    await old.query(
      `INSERT INTO analytics.account_visitor_days (owner_id, day, visitor, last_seen)
       VALUES ('owner-a', '2026-11-20', $1, '2026-11-20T10:00Z'),
              ('owner-a', '2026-11-20', $2, '2026-11-20T11:00Z')`,
      [visitor(1), visitor(2)],
    );
    await old.destroy();

    source = await migrate(analyticsMigrations.slice(0, at + 1));
    const links = await both(source, 'visitor_days', 'visitor_counts', 'url_id');
    expect(links.counted).toEqual([
      { key: 'AbC1234', day: '2026-11-20', visitors: 2 },
      { key: 'AbC1234', day: '2026-11-21', visitors: 1 },
      { key: 'XyZ9876', day: '2026-11-21', visitors: 1 },
    ]);
    expect(links.counted).toEqual(links.rows);
    const accounts = await both(
      source,
      'account_visitor_days',
      'account_visitor_counts',
      'owner_id',
    );
    expect(accounts.counted).toEqual([{ key: 'owner-a', day: '2026-11-20', visitors: 2 }]);

    // As ingest writes them: a visitor seen again that day moves its last visit, a new one adds.
    await source.query(
      `INSERT INTO analytics.visitor_days AS v (url_id, day, visitor, last_seen)
       SELECT * FROM unnest($1::varchar[], $2::date[], $3::bytea[], $4::timestamptz[])
       ON CONFLICT (url_id, day, visitor) DO UPDATE SET last_seen = EXCLUDED.last_seen
         WHERE v.last_seen < EXCLUDED.last_seen`,
      [
        ['AbC1234', 'AbC1234', 'AbC1234', 'XyZ9876'],
        ['2026-11-20', '2026-11-20', '2026-11-22', '2026-11-21'],
        [visitor(1), visitor(4), visitor(1), visitor(3)],
        ['2026-11-20T23:00Z', '2026-11-20T12:00Z', '2026-11-22T01:00Z', '2026-11-21T08:00Z'],
      ],
    );
    // A link's deletion, and an account's day counted again (cleared, then filled).
    await source.query("DELETE FROM analytics.visitor_days WHERE url_id = 'XyZ9876'");
    await source.query(
      "DELETE FROM analytics.account_visitor_days WHERE owner_id = 'owner-a' AND day = '2026-11-20'",
    );
    await source.query(
      `INSERT INTO analytics.account_visitor_days (owner_id, day, visitor, last_seen)
       VALUES ('owner-a', '2026-11-20', $1, '2026-11-20T10:00Z')`,
      [visitor(9)],
    );

    const after = await both(source, 'visitor_days', 'visitor_counts', 'url_id');
    expect(after.counted).toEqual([
      { key: 'AbC1234', day: '2026-11-20', visitors: 3 },
      { key: 'AbC1234', day: '2026-11-21', visitors: 1 },
      { key: 'AbC1234', day: '2026-11-22', visitors: 1 },
    ]);
    expect(after.counted).toEqual(after.rows);
    const recounted = await both(
      source,
      'account_visitor_days',
      'account_visitor_counts',
      'owner_id',
    );
    expect(recounted.counted).toEqual([{ key: 'owner-a', day: '2026-11-20', visitors: 1 }]);
    expect(recounted.counted).toEqual(recounted.rows);
  });

  it('go with their migration undone, and the triggers with them', async () => {
    await source!.undoLastMigration({ transaction: 'each' });
    const [left]: { tables: number; triggers: number }[] = await source!.query(
      `SELECT (SELECT count(*)::int FROM information_schema.tables WHERE table_schema = 'analytics'
                 AND table_name IN ('visitor_counts', 'account_visitor_counts')) AS tables,
              (SELECT count(*)::int FROM information_schema.triggers
                 WHERE trigger_schema = 'analytics') AS triggers`,
    );
    expect(left).toEqual({ tables: 0, triggers: 0 });
    // The release before writes its visitor-days as ever.
    await source!.query(
      `INSERT INTO analytics.visitor_days (url_id, day, visitor, last_seen)
       VALUES ('AbC1234', '2026-11-23', '\\x01', '2026-11-23T10:00Z')`,
    );
  });
});
