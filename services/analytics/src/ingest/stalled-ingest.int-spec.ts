import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { Client } from 'pg';
import { EntityManager } from 'typeorm';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { testServers } from '@shortener/testkit';
import { analyticsMigrations } from '../migrations';
import { PartitionsRepository } from '../visits/partitions.repository';
import { LinkOwnersRepository } from '../visits/link-owners.repository';
import { IDLE_TRANSACTION_MS } from '../visits/analytics-database';
import { IngestRepository, type VisitRow } from './ingest.repository';

// Two consumers of one account on a database of their own (made and dropped here), through
// the service's own repositories: one stalls inside its transaction (a frozen pod: SIGSTOP,
// a node that hangs), holding the account's rollup rows; the other, given the stalled one's
// partitions, must not wait for it longer than IDLE_TRANSACTION_MS, or it cannot rejoin its
// group (the capacity scenario's consumer waited out every timeout that way). The stalled
// batch is rolled back whole and stored once when it is delivered again.

function visit(urlId: string): VisitRow {
  return {
    id: randomUUID(),
    urlId,
    timestamp: Date.now(),
    ipAddress: '203.0.113.7',
    platform: 'Windows',
    browser: 'Chrome',
    referrer: null,
    bot: false,
    device: 'desktop',
    country: 'US',
    referrerHost: '(direct)',
    visitor: randomBytes(16),
  };
}

describe('an ingest transaction that stalls', () => {
  const name = `analytics_stall_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: testServers.databaseUrl });
  const databases: ManagedDataSource[] = [];

  async function database(application: string): Promise<ManagedDataSource> {
    const url = new URL(testServers.databaseUrl);
    url.pathname = `/${name}`;
    const opened = new ManagedDataSource({
      url: url.toString(),
      schema: 'analytics',
      entities: [],
      migrations: analyticsMigrations,
      logger: pino({ level: 'silent' }),
      applicationName: application,
      migrate: databases.length === 0,
    });
    await opened.start();
    databases.push(opened);
    return opened;
  }

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    for (const opened of databases) await opened.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("does not hold the account's other consumer past its idle limit, and is stored once when delivered again", async () => {
    const frozen = await database('stalled-ingest-frozen');
    const live = await database('stalled-ingest-live');
    await new PartitionsRepository(frozen).maintain(undefined, new Date());
    // One owner's two links, each on another partition's consumer.
    await new LinkOwnersRepository(frozen).register([
      { urlID: 'Stall01', ownerId: 'owner-stall' },
      { urlID: 'Stall02', ownerId: 'owner-stall' },
    ]);
    const config = { VISIT_RETENTION_MONTHS: undefined };
    const stalling = new IngestRepository(frozen, config);
    const going = new IngestRepository(live, config);

    // The frozen consumer stops right after raising the rollups, its transaction open.
    let thaw: () => void = () => undefined;
    const thawed = new Promise<void>((resolve) => (thaw = resolve));
    let stalled = false;
    const query = EntityManager.prototype.query;
    jest.spyOn(EntityManager.prototype, 'query').mockImplementation(async function (
      this: EntityManager,
      sql: string,
      parameters?: unknown[],
    ) {
      const answer: unknown = await query.call(this, sql, parameters);
      if (this.connection === frozen.dataSource && /account_hours/.test(sql) && !stalled) {
        stalled = true;
        await thawed;
      }
      return answer;
    });
    const batch = [visit('Stall01'), visit('Stall01')];
    const first = stalling.storeVisits(batch, 100).then(
      () => 'stored',
      () => 'refused',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stalled).toBe(true);

    const startedAt = Date.now();
    const other = await going.storeVisits([visit('Stall02')], 100);
    expect(other).toMatchObject({ stored: 1 });
    // With the owner of its link, for the account's live notices.
    expect([...other.owners]).toEqual([['Stall02', 'owner-stall']]);
    const waited = Date.now() - startedAt;
    expect(waited).toBeGreaterThan(IDLE_TRANSACTION_MS / 2);
    expect(waited).toBeLessThan(IDLE_TRANSACTION_MS + 5_000);

    // Thawed, it finds its transaction ended by PostgreSQL: nothing of it was stored.
    thaw();
    expect(await first).toBe('refused');
    const count = async (sql: string): Promise<number> => {
      const [row]: Array<{ n: number }> = await live.dataSource.query(sql);
      return row?.n ?? -1;
    };
    expect(
      await count("SELECT count(*)::int AS n FROM analytics.visits WHERE url_id = 'Stall01'"),
    ).toBe(0);
    // Delivered again (its offsets were never committed), it is stored once.
    expect(await going.storeVisits(batch, 100)).toMatchObject({ stored: 2 });
    expect(await going.storeVisits(batch, 100)).toMatchObject({ stored: 0, duplicates: 2 });
    expect(
      await count(
        "SELECT sum(visits)::int AS n FROM analytics.account_hours WHERE owner_id = 'owner-stall'",
      ),
    ).toBe(3);
  }, 60_000);
});
