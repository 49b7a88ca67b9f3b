// The visits partitioning migration on a big table, while the service serves (a measurement,
// not a test). In a database of its own (made and dropped here):
//   1. the analytics schema of the release before, its visits table filled with --rows visits
//      (1,000 links, two years of visit times);
//   2. while the migration runs (PartitionVisits1796200000000, as the migrate Job runs it):
//      a writer storing 100 visits a statement as the release before does (and, once the
//      tables are swapped and that INSERT is refused, as this release does), and a reader
//      paging a random link's visits as the visitors list does, each timing every statement;
//      a monitor reading pg_locks every 20 ms for the longest wait on a lock of the schema;
//   3. prints the migration's duration, each locking step's wait and hold, and the writer's
//      and reader's statement times (p50, p99, max) and the longest lock wait seen.
// Figures are for this machine and whatever else runs on it.
//
//   npm run build
//   node bench/visits-partitioning.mjs [--rows 3000000] [--slice 10000]
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { testServers } from '../packages/testkit/dist/index.js';
import { CreateAnalytics1763950000000 } from '../services/analytics/dist/migrations/1763950000000-create-analytics.js';
import { VisitStats1764000000000 } from '../services/analytics/dist/migrations/1764000000000-visit-stats.js';
import { AliasCodes1796100000000 } from '../services/analytics/dist/migrations/1796100000000-alias-codes.js';
import { PartitionVisits1796200000000 } from '../services/analytics/dist/migrations/1796200000000-partition-visits.js';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '3000000' },
    slice: { type: 'string', default: '10000' },
  },
});
const ROWS = Number(args.rows);
const SLICE = Number(args.slice);
const LINKS = 1000;
const FILL_STEP = 250_000;

const name = `bench_partition_${randomBytes(4).toString('hex')}`;
const url = new URL(testServers.databaseUrl);
url.pathname = `/${name}`;
const admin = new pg.Client({ connectionString: testServers.databaseUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);

const code = (i) => `Bench${String(i).padStart(4, '0')}`;

/** The release before's INSERT (its ingest.repository.ts). */
const PREVIOUS_INSERT = `
  INSERT INTO analytics.visits
    (id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country)
  SELECT * FROM unnest($1::uuid[], $2::varchar[], $3::timestamptz[], $4::varchar[], $5::text[],
                       $6::text[], $7::text[], $8::boolean[], $9::text[], $10::text[])
  ON CONFLICT (id) DO NOTHING RETURNING id`;

/** This release's (ingest.repository.ts): exactly once by visit_ids. */
const CURRENT_INSERT = `
  WITH rows AS (
    SELECT * FROM unnest($1::uuid[], $2::varchar[], $3::timestamptz[], $4::varchar[],
                         $5::text[], $6::text[], $7::text[], $8::boolean[], $9::text[],
                         $10::text[])
      AS t(id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country)
  ),
  fresh AS (
    INSERT INTO analytics.visit_ids (id) SELECT id FROM rows ON CONFLICT (id) DO NOTHING
    RETURNING id
  )
  INSERT INTO analytics.visits
    (id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country)
  SELECT rows.* FROM rows JOIN fresh USING (id) RETURNING id`;

const PAGE = `
  SELECT id, created_at, ip_address, platform, browser, bot FROM analytics.visits
  WHERE url_id = $1 ORDER BY created_at DESC, id DESC LIMIT 50`;

function summary(label, times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return `${label}: ${sorted.length} statements, p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`;
}

const source = new DataSource({
  type: 'postgres',
  url: url.toString(),
  migrations: [CreateAnalytics1763950000000, VisitStats1764000000000, AliasCodes1796100000000],
  migrationsTableName: 'migrations',
  migrationsTransactionMode: 'each',
  applicationName: 'bench-partition-migrate',
});
try {
  await source.initialize();
  await source.query('CREATE SCHEMA analytics');
  await source.runMigrations({ transaction: 'each' });

  const filling = performance.now();
  for (let start = 0; start < ROWS; start += FILL_STEP) {
    await source.query(
      `INSERT INTO analytics.visits
         (id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country)
       SELECT gen_random_uuid(), 'Bench' || lpad((random() * ${LINKS - 1})::int::text, 4, '0'),
              now() - random() * interval '730 days',
              '203.0.113.' || (random() * 254)::int, 'Windows', 'Chrome',
              CASE WHEN random() < 0.5 THEN NULL ELSE 'https://news.example/a' END,
              random() < 0.1, 'desktop', 'US'
       FROM generate_series(1, $1)`,
      [Math.min(FILL_STEP, ROWS - start)],
    );
  }
  await source.query('VACUUM ANALYZE analytics.visits');
  const [{ size }] = await source.query(
    "SELECT pg_size_pretty(pg_total_relation_size('analytics.visits')) AS size",
  );
  console.log(
    `filled ${ROWS} visits (${size} with indexes) in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
  );

  let running = true;
  const writes = [];
  const reads = [];
  let refusedOld = 0;
  let maxLockWaitMs = 0;
  let waitedFor = '';

  const writer = new pg.Client({
    connectionString: url.toString(),
    application_name: 'bench-writer',
  });
  const reader = new pg.Client({
    connectionString: url.toString(),
    application_name: 'bench-reader',
  });
  const monitor = new pg.Client({
    connectionString: url.toString(),
    application_name: 'bench-monitor',
  });
  await Promise.all([writer.connect(), reader.connect(), monitor.connect()]);

  const writing = (async () => {
    let statement = PREVIOUS_INSERT;
    while (running) {
      const rows = Array.from({ length: 100 }, () => ({
        id: randomUUID(),
        url: code(randomInt(LINKS)),
        at: new Date(Date.now() - randomInt(60_000)).toISOString(),
      }));
      const began = performance.now();
      try {
        await writer.query(statement, [
          rows.map((row) => row.id),
          rows.map((row) => row.url),
          rows.map((row) => row.at),
          rows.map(() => '203.0.113.9'),
          rows.map(() => 'iOS'),
          rows.map(() => 'Mobile Safari'),
          rows.map(() => null),
          rows.map(() => false),
          rows.map(() => 'mobile'),
          rows.map(() => 'GB'),
        ]);
        writes.push(performance.now() - began);
      } catch (error) {
        // The release before's ON CONFLICT (id) after the swap: its pods retry; the new ones
        // take over with this release's statement.
        if (error.code !== '42P10') throw error;
        refusedOld += 1;
        statement = CURRENT_INSERT;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const reading = (async () => {
    while (running) {
      const began = performance.now();
      await reader.query(PAGE, [code(randomInt(LINKS))]);
      reads.push(performance.now() - began);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const monitoring = (async () => {
    while (running) {
      const { rows } = await monitor.query(
        `SELECT a.application_name AS who, l.mode,
                extract(epoch FROM clock_timestamp() - l.waitstart) * 1000 AS waited
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE NOT l.granted AND l.waitstart IS NOT NULL AND a.datname = current_database()`,
      );
      for (const row of rows) {
        if (Number(row.waited) > maxLockWaitMs) {
          maxLockWaitMs = Number(row.waited);
          waitedFor = `${row.who} for ${row.mode}`;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();

  await new Promise((resolve) => setTimeout(resolve, 2000));
  const migration = new PartitionVisits1796200000000(SLICE);
  const runner = source.createQueryRunner();
  const migrating = performance.now();
  try {
    await runner.connect();
    await migration.up(runner);
  } finally {
    await runner.release();
  }
  const durationS = (performance.now() - migrating) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  running = false;
  await Promise.all([writing, reading, monitoring]);
  await Promise.all([writer.end(), reader.end(), monitor.end()]);

  const [{ visits, partitions }] = await source.query(
    `SELECT (SELECT count(*)::int FROM analytics.visits) AS visits,
            (SELECT count(*)::int FROM pg_inherits
             WHERE inhparent = 'analytics.visits'::regclass) AS partitions`,
  );
  console.log(
    `migration: ${durationS.toFixed(1)} s, copied in slices of ${SLICE}; now ${visits} visits in ${partitions} monthly tables`,
  );
  // What sizes the migration Job's PARTITION_COPY_SECONDS and deadline (k8s/base/migrate-job.yaml).
  const rate = ROWS / durationS;
  console.log(
    `copy rate: ${Math.round(rate)} visits/s of those already there (the writer's beside them); 600 s copies about ${((rate * 600) / 1e6).toFixed(1)} M`,
  );
  for (const lock of migration.locks) {
    console.log(
      `  lock for ${lock.step}: waited ${lock.waitedMs.toFixed(1)} ms, held ${lock.heldMs.toFixed(1)} ms (${lock.tries} tries)`,
    );
  }
  console.log(summary('writer (100 visits a statement)', writes));
  console.log(`  release before's INSERT refused after the swap (42P10, retried): ${refusedOld}`);
  console.log(summary('reader (a page of 50 visits)', reads));
  console.log(
    `longest lock wait seen in pg_locks: ${maxLockWaitMs.toFixed(0)} ms${waitedFor ? ` (${waitedFor})` : ''}`,
  );
} finally {
  await source.destroy().catch(() => undefined);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
