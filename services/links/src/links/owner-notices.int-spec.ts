import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { testServers } from '@shortener/testkit';
import { linksMigrations } from '../migrations';
import { OWNER_NOTICES_BATCH, OWNER_NOTICES_NEXT } from './owner-notices.service';

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Rows a plan read from links.links, every scan of it counted (rows times loops). */
function linksRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'links'
      ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + linksRead(child), 0);
}

// A database of its own: 40,000 new links in the outbox, the first half of them told and
// deleted by a drain under way, whose table statistics were taken before it began (as within
// any drain: nothing analyzes a table while it is drained).
describe("the owner notices' next batch", () => {
  const name = `links_notices_${randomBytes(4).toString('hex')}`;
  const url = new URL(testServers.databaseUrl);
  url.pathname = `/${name}`;
  const admin = new Client({ connectionString: testServers.databaseUrl });
  let source: DataSource;
  const code = (n: number) => `c${String(n).padStart(6, '0')}`;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    source = new DataSource({
      type: 'postgres',
      url: url.toString(),
      migrations: linksMigrations,
      migrationsTableName: 'migrations',
      migrationsTransactionMode: 'each',
    });
    await source.initialize();
    await source.query('CREATE SCHEMA IF NOT EXISTS links');
    await source.runMigrations({ transaction: 'each' });
    await source.query(
      'ALTER TABLE links.owner_notices SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)',
    );
    await source.query(
      `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at)
       SELECT 'c' || lpad(n::text, 6, '0'), 'https://example.com/' || n, 'owner-' || (n % 7),
              now(), now() + interval '7 days'
       FROM generate_series(1, 40000) AS n`,
    );
    await source.query('VACUUM ANALYZE links.links, links.owner_notices');
    await source.query('DELETE FROM links.owner_notices WHERE code <= $1', [code(20000)]);
  }, 60_000);

  afterAll(async () => {
    await source?.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('reads the links of its own notices only, not every link whose code sorts before them', async () => {
    const explained = async (after: string) => {
      const rows = await source.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }[]>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${OWNER_NOTICES_NEXT}`,
        [OWNER_NOTICES_BATCH, after],
      );
      return rows[0]!['QUERY PLAN'][0]!.Plan;
    };
    const first = await explained('');
    expect(linksRead(first)).toBe(OWNER_NOTICES_BATCH);

    const batch: { code: string; owner_id: string }[] = await source.query(OWNER_NOTICES_NEXT, [
      OWNER_NOTICES_BATCH,
      '',
    ]);
    expect(batch.map((row) => row.code)).toEqual(
      Array.from({ length: OWNER_NOTICES_BATCH }, (_, i) => code(20001 + i)),
    );
    expect(batch[0]!.owner_id).toBe(`owner-${20001 % 7}`);
    // The next batch starts past the last code: the first ones, told and deleted, are not read.
    const next: { code: string }[] = await source.query(OWNER_NOTICES_NEXT, [
      OWNER_NOTICES_BATCH,
      batch[batch.length - 1]!.code,
    ]);
    expect(next[0]!.code).toBe(code(20001 + OWNER_NOTICES_BATCH));
  });
});
