import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { testServers } from '@shortener/testkit';
import { CreateAnalytics1763950000000 } from './1763950000000-create-analytics';
import { VisitStats1764000000000 } from './1764000000000-visit-stats';

// An analytics database from before the stats (a database of its own, made and dropped here):
// the migration adds the stats and backfills them from the visits already stored.

describe('the visit stats migration', () => {
  const name = `analytics_backfill_${randomBytes(4).toString('hex')}`;
  const url = new URL(testServers.databaseUrl);
  url.pathname = `/${name}`;
  const admin = new Client({ connectionString: testServers.databaseUrl });

  const migrate = async (migrations: Array<new () => object>): Promise<DataSource> => {
    const source = new DataSource({
      type: 'postgres',
      url: url.toString(),
      migrations,
      migrationsTableName: 'migrations',
      migrationsTransactionMode: 'each',
    });
    await source.initialize();
    await source.query('CREATE SCHEMA IF NOT EXISTS analytics');
    await source.runMigrations({ transaction: 'each' });
    return source;
  };

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  });

  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('fills the rollups, breakdowns and visitor-days from the visits already stored', async () => {
    const before = await migrate([CreateAnalytics1763950000000]);
    const visits = [
      // id, url_id, created_at, ip_address, platform, browser, referrer
      ['AbC1234', '2026-11-20T10:15:00Z', '8.8.8.8', 'Windows', 'Chrome', 'https://a.example/x'],
      ['AbC1234', '2026-11-20T10:45:00Z', '8.8.8.8', 'Windows', 'Chrome', null],
      ['AbC1234', '2026-11-20T11:05:00Z', '1.1.1.1', 'iOS', 'Mobile Safari', 'not a url'],
      ['AbC1234', '2026-11-21T09:00:00Z', '8.8.8.8', 'Windows', 'Chrome', null],
      ['XyZ9876', '2026-11-21T09:00:00Z', '10.0.0.1', 'Linux', 'Firefox', null],
    ];
    for (const [urlId, createdAt, ip, platform, browser, referrer] of visits) {
      await before.query(
        `INSERT INTO analytics.visits (id, url_id, created_at, ip_address, platform, browser, referrer)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6)`,
        [urlId, createdAt, ip, platform, browser, referrer],
      );
    }
    await before.destroy();

    const after = await migrate([CreateAnalytics1763950000000, VisitStats1764000000000]);
    try {
      const hours: Array<{ url_id: string; hour: Date; visits: string; humans: string }> =
        await after.query(
          'SELECT url_id, hour, visits, humans FROM analytics.visit_hours ORDER BY url_id, hour',
        );
      expect(hours.map((row) => [row.url_id, row.hour.toISOString(), Number(row.visits)])).toEqual([
        ['AbC1234', '2026-11-20T10:00:00.000Z', 2],
        ['AbC1234', '2026-11-20T11:00:00.000Z', 1],
        ['AbC1234', '2026-11-21T09:00:00.000Z', 1],
        ['XyZ9876', '2026-11-21T09:00:00.000Z', 1],
      ]);
      const breakdowns: Array<{ dimension: string; value: string; visits: string }> =
        await after.query(
          `SELECT dimension, value, sum(visits) AS visits FROM analytics.visit_breakdowns
           WHERE url_id = 'AbC1234' GROUP BY 1, 2 ORDER BY 1, 2`,
        );
      expect(breakdowns.map((row) => [row.dimension, row.value, Number(row.visits)])).toEqual([
        ['browser', 'Chrome', 3],
        ['browser', 'Mobile Safari', 1],
        ['country', 'AU', 1],
        ['country', 'US', 3],
        ['device', 'other', 4],
        ['os', 'Windows', 3],
        ['os', 'iOS', 1],
        ['referrer', '(direct)', 2],
        ['referrer', '(unknown)', 1],
        ['referrer', 'a.example', 1],
      ]);
      const countries: Array<{ country: string }> = await after.query(
        "SELECT country FROM analytics.visits WHERE url_id = 'XyZ9876'",
      );
      expect(countries).toEqual([{ country: 'ZZ' }]);
      // One visitor on the 20th (twice) and the 21st, one other on the 20th.
      const [visitors]: Array<{ days: number }> = await after.query(
        "SELECT count(*)::int AS days FROM analytics.visitor_days WHERE url_id = 'AbC1234'",
      );
      expect(visitors?.days).toBe(3);
    } finally {
      await after.destroy();
    }
  });
});
