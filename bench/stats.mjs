// Stats benchmark (a measurement, not a test). In one run on this machine:
//   1. ingest with the stats rollups (the link's, and its owner's account's: the link's owner
//      is told to analytics as the links service tells it, before the first visit): a backlog of visit events for one link (spread over 30
//      days, 50 User-Agents, 500 addresses in many countries, a few referrers) on a topic of
//      its own, in the order they happened and with ids as the redirect makes them (UUIDv7 of
//      the visit's time), consumed by a fresh analytics service: visits stored per second, and
//      the CPU time a visit of the service and of PostgreSQL;
//   2. beside it, the baseline: the same number of rows written into a plain table by raw
//      multi-row INSERTs (the consumer's chunk size, one connection, no rollups, no checks);
//      the ratio of the two;
//   3. GET /internal/stats for that link (1,000,000 visits by default) for each range: p50,
//      p95, max over sequential calls (the gateway's /api/stats adds its ownership lookup).
// Nothing is pinned: PostgreSQL does the work in both parts; figures are for this machine.
//
//   npm run build && npm run infra:up -- --db shortener_test
//   node bench/stats.mjs [--events 1000000] [--calls 200] [--format records|json]
//   --format records (the default) packs the visits as the redirect service sends them (its own
//   publisher); json sends one event a message, as versions before the packed records did.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import pg from 'pg';
import { InternalClient } from '../packages/chassis/dist/index.js';
import { encodeVisits, internalApi } from '../packages/contracts/dist/index.js';
import { KafkaVisitPublisher } from '../services/redirect/dist/visit-publishers.js';
import { startStack, testServers, waitFor } from '../packages/testkit/dist/index.js';
import { cpuMeter, stackGroups } from './proc.mjs';
import { rawInsert } from './raw-insert.mjs';
import { visitId } from './visit-id.mjs';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    calls: { type: 'string', default: '200' },
    /** `records`: packed as the redirect service sends them; `json`: one event a message (before). */
    format: { type: 'string', default: 'records' },
  },
});
if (!['records', 'json'].includes(args.format)) {
  throw new Error(`--format records or --format json, not ${args.format}`);
}
const EVENTS = Number(args.events);
const CALLS = Number(args.calls);
const DAY = 86_400_000;

const USER_AGENTS = Array.from({ length: 50 }, (_, i) =>
  i % 10 === 9
    ? `Mozilla/5.0 (compatible; Googlebot/2.${i}; +http://www.google.com/bot.html)`
    : `Mozilla/5.0 (${['Windows NT 10.0; Win64; x64', 'Macintosh; Intel Mac OS X 14_0', 'iPhone; CPU iPhone OS 17_5 like Mac OS X', 'X11; Linux x86_64'][i % 4]}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${100 + i}.0.0.0 Safari/537.36`,
);
// Public addresses across many networks (countries), and a few private ones (ZZ).
const ADDRESSES = Array.from({ length: 500 }, (_, i) =>
  i % 50 === 0
    ? `10.0.${i % 256}.1`
    : `${[8, 1, 81, 193, 45, 62, 151, 200, 41, 103][i % 10]}.${(i * 7) % 256}.${(i * 13) % 256}.${1 + (i % 250)}`,
);
const REFERRERS = [
  null,
  null,
  'https://news.example.org/a',
  'https://social.example/p',
  'not a url',
];
const CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const code = Array.from({ length: 7 }, () => CODE_ALPHABET[Math.floor(Math.random() * 62)]).join(
  '',
);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The i-th visit of the backlog: the first 30 days ago, the last at `now`. */
function event(i, now) {
  const timestamp = now - Math.floor(((EVENTS - 1 - i) / EVENTS) * 30 * DAY);
  return {
    schemaVersion: 1,
    id: visitId(timestamp),
    urlID: code,
    timestamp,
    ip: ADDRESSES[i % ADDRESSES.length],
    userAgent: USER_AGENTS[(i * 7) % USER_AGENTS.length],
    referrer: REFERRERS[i % REFERRERS.length],
  };
}

async function produce(kafka, topic) {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  // The topic's six partitions; every visit is of one link, so all go to one of them.
  const packed = new KafkaVisitPublisher(producer, () => 6, { topic });
  const now = Date.now();
  for (let sent = 0; sent < EVENTS; sent += 2000) {
    const events = Array.from({ length: Math.min(2000, EVENTS - sent) }, (_, j) =>
      event(sent + j, now),
    );
    if (args.format === 'json') {
      const messages = events.map((value) => ({ key: code, value: JSON.stringify(value) }));
      await producer.send({ topic, acks: -1, messages });
    } else {
      const runs = [];
      for (let at = 0; at < events.length; at += 1000)
        runs.push(encodeVisits(events.slice(at, at + 1000)));
      await packed.publish(runs);
    }
  }
  await producer.disconnect();
}

async function main() {
  const kafka = new Kafka({
    clientId: 'bench-stats',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const db = new pg.Client({ connectionString: testServers.databaseUrl });
  await db.connect();
  const admin = kafka.admin();
  await admin.connect();
  const topic = `bench.visits.${randomUUID().slice(0, 8)}`;
  await admin.createTopics({ topics: [{ topic, numPartitions: 6 }], waitForLeaders: true });
  console.log(
    `stats benchmark: ${EVENTS} visits of one link (${code}) over 30 days, ${args.format === 'json' ? 'one JSON event a message' : 'packed records'}`,
  );
  await produce(kafka, topic);

  const stack = await startStack({
    services: ['analytics'],
    env: { VISITS_TOPIC: topic, KAFKA_CONSUMER_GROUP: `bench-${randomUUID()}` },
  });
  const analytics = new InternalClient(
    'analytics',
    stack.get('analytics').url,
    stack.secret,
    30_000,
  );
  // The link has an owner, so each batch raises the account rollups too (GET /api/analytics).
  await analytics.call(internalApi.registerLinkOwners, {
    body: { owners: [{ urlID: code, ownerId: `bench-${randomUUID()}` }] },
  });
  const count = async () =>
    (await analytics.call(internalApi.visitCounts, { body: { codes: [code] } })).body.counts[code];
  try {
    await waitFor(async () => (await count()) > 0, { timeoutMs: 120_000, what: 'first visits' });
    const start = { at: Date.now(), n: await count() };
    const pid = stack.get('analytics').child.pid;
    const meter = cpuMeter(stackGroups({ analytics: pid }));
    await waitFor(async () => (await count()) >= EVENTS, {
      timeoutMs: 30 * 60_000,
      intervalMs: 1000,
      what: 'every visit stored',
    });
    const ingestRate = (EVENTS - start.n) / ((Date.now() - start.at) / 1000);
    const perVisit = (seconds) => ((seconds * 1e6) / (EVENTS - start.n)).toFixed(1);
    const cpu = meter();
    const now = Date.now();
    const rawRate = await rawInsert(db, EVENTS, (i) => event(i, now));
    console.log(
      `1. ingest with rollups (link and account): ${Math.round(ingestRate)} visits/s; CPU a visit: the consumer ${perVisit(cpu.analytics)} µs, PostgreSQL ${perVisit(cpu.postgresql)} µs`,
    );
    console.log(`2. raw multi-row insert, same rows: ${Math.round(rawRate)} rows/s`);
    console.log(`   ratio ingest / raw: ${(ingestRate / rawRate).toFixed(2)} (goal >= 0.75)`);

    console.log(`3. GET /internal/stats/${code}, ${CALLS} sequential calls per range:`);
    const rows = [];
    for (const range of ['24h', '7d', '30d', 'all']) {
      const times = [];
      let totals;
      for (let i = 0; i < CALLS; i += 1) {
        const began = performance.now();
        const answer = await analytics.call(internalApi.linkStats, {
          params: { code },
          query: { range, createdAt: Date.now() - 31 * DAY },
        });
        times.push(performance.now() - began);
        totals = answer.body.totals;
      }
      times.sort((a, b) => a - b);
      rows.push({
        range,
        visits: totals.visits,
        p50: +percentile(times, 50).toFixed(1),
        p95: +percentile(times, 95).toFixed(1),
        max: +times.at(-1).toFixed(1),
      });
    }
    console.table(rows);
  } finally {
    await analytics
      .call(internalApi.deleteVisits, { body: { codes: [code] } })
      .catch(() => undefined);
    await stack.stop();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
    await db.end();
  }
}

await main();
