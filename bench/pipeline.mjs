// Pipeline benchmark (a measurement, not a test): the analytics side of a visit.
//   1. sustained ingest: a backlog of visit events on a topic of its own, consumed by a
//      fresh analytics service; visits written to PostgreSQL per second over 60 s (with the
//      stats rollups), beside raw multi-row inserts of as many rows into the same PostgreSQL;
//   2. redirect to visible: while a steady background load runs, a redirect is made and the
//      visitors API polled until the visit shows; p50 and p95 over many samples;
//   3. the redirect service's resident memory, sampled under full load.
//
//   npm run build && npm run infra:up -- --db shortener_test
//   node bench/pipeline.mjs [--events 1800000] [--seconds 60] [--samples 100] [--format records|json]
//                           [--only ingest|visibility] [--analytics-env '{"INGEST_CONCURRENCY": "4"}']
//   --only ingest runs part 1 alone (ingest and its raw baseline), --only visibility parts 2-3.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { InternalClient } from '../packages/chassis/dist/index.js';
import { encodeVisits, VISITS_TOPIC } from '../packages/contracts/dist/index.js';
import { KafkaVisitPublisher } from '../services/redirect/dist/visit-publishers.js';
import { startStack, testServers, waitFor } from '../packages/testkit/dist/index.js';
import { cpuMeter, rssMb, rssPeak, stackGroups } from './proc.mjs';
import { visitId } from './visit-id.mjs';
import { rawInsert } from './raw-insert.mjs';
import { createLink, whenReady } from './stack.mjs';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1800000' },
    seconds: { type: 'string', default: '60' },
    samples: { type: 'string', default: '100' },
    /** `records`: packed as the redirect service sends them; `json`: one event a message (before). */
    format: { type: 'string', default: 'records' },
    only: { type: 'string' },
    /** Extra variables for the ingest part's analytics service (to compare settings). */
    'analytics-env': { type: 'string', default: '{}' },
  },
});
const EVENTS = Number(args.events);
const WINDOW_S = Number(args.seconds);
const SAMPLES = Number(args.samples);
if (args.only !== undefined && !['ingest', 'visibility'].includes(args.only)) {
  throw new Error(`--only ingest or --only visibility, not ${args.only}`);
}

const USER_AGENTS = Array.from(
  { length: 30 },
  (_, i) =>
    `Mozilla/5.0 (${['Windows NT 10.0; Win64; x64', 'Macintosh; Intel Mac OS X 14_0', 'X11; Linux x86_64'][i % 3]}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${100 + i}.0.0.0 Safari/537.36`,
);
const CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const randomCode = () =>
  Array.from({ length: 7 }, () => CODE_ALPHABET[Math.floor(Math.random() * 62)]).join('');

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function ingest(kafka, db) {
  const topic = `bench.visits.${randomUUID().slice(0, 8)}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 6 }], waitForLeaders: true });
  const codes = Array.from({ length: 1000 }, randomCode);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const began = Date.now();
  const BATCH = 10_000;
  // Packed as the redirect service packs them (its own publisher), or one JSON event a message.
  const packed = new KafkaVisitPublisher(producer, () => 6, { topic });
  for (let sent = 0; sent < EVENTS; sent += BATCH) {
    const now = Date.now();
    const events = Array.from({ length: Math.min(BATCH, EVENTS - sent) }, (_, i) => ({
      schemaVersion: 1,
      id: visitId(now),
      urlID: codes[(sent + i) % codes.length],
      timestamp: now,
      ip: `198.51.100.${(sent + i) % 250}`,
      userAgent: USER_AGENTS[(sent + i) % USER_AGENTS.length],
      referrer: null,
    }));
    if (args.format === 'json') {
      const messages = events.map((event) => ({ key: event.urlID, value: JSON.stringify(event) }));
      await producer.send({ topic, acks: -1, messages });
    } else {
      const runs = [];
      for (let at = 0; at < events.length; at += 1000)
        runs.push(encodeVisits(events.slice(at, at + 1000)));
      await packed.publish(runs);
    }
  }
  await producer.disconnect();
  const produceSeconds = (Date.now() - began) / 1000;
  console.log(`produced ${EVENTS} events to ${topic} in ${produceSeconds.toFixed(1)} s`);

  const stored = async () =>
    Number(
      (
        await db.query(
          'SELECT coalesce(sum(visit_count), 0)::bigint AS n FROM analytics.link_stats WHERE url_id = ANY($1)',
          [codes],
        )
      ).rows[0].n,
    );
  const stack = await startStack({
    services: ['analytics'],
    env: { VISITS_TOPIC: topic, KAFKA_CONSUMER_GROUP: `bench-${randomUUID()}` },
    serviceEnv: { analytics: JSON.parse(args['analytics-env']) },
  });
  try {
    await waitFor(async () => (await stored()) > 0, { timeoutMs: 60_000, what: 'first visits' });
    const start = { at: Date.now(), n: await stored() };
    const meter = cpuMeter(stackGroups({ analytics: stack.get('analytics').child.pid }));
    let last = start;
    const deadline = start.at + WINDOW_S * 1000;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      last = { at: Date.now(), n: await stored() };
      if (last.n >= EVENTS) break;
    }
    const rate = (last.n - start.n) / ((last.at - start.at) / 1000);
    const finished = last.n >= EVENTS ? ' (backlog finished inside the window)' : '';
    const cpu = meter();
    console.log(
      `ingest: ${Math.round(rate)} visits/s written to PostgreSQL over ${((last.at - start.at) / 1000).toFixed(1)} s${finished}, stats rollups included`,
    );
    const perVisit = (seconds) => ((seconds * 1e6) / (last.n - start.n)).toFixed(1);
    console.log(
      `CPU a visit stored: analytics ${perVisit(cpu.analytics)} µs, PostgreSQL ${perVisit(cpu.postgresql)} µs, broker ${perVisit(cpu['kafka broker'])} µs`,
    );
    // The baseline, in this run, on the same PostgreSQL: as many rows as ingest wrote, raw.
    await stack.stop();
    const now = Date.now();
    const raw = await rawInsert(db, Math.max(100_000, last.n - start.n), (i) => ({
      id: visitId(now),
      urlID: codes[i % codes.length],
      timestamp: now,
      ip: `198.51.100.${i % 250}`,
      referrer: null,
    }));
    console.log(
      `raw multi-row insert, same PostgreSQL: ${Math.round(raw)} rows/s; ingest / raw = ${(rate / raw).toFixed(2)} (goal >= 0.75)`,
    );
    return { rate, window: (last.at - start.at) / 1000 };
  } finally {
    await stack.stop();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    for (const table of [
      'visits',
      'link_stats',
      'visit_hours',
      'visit_breakdowns',
      'visit_breakdown_hours',
      'visitor_days',
    ]) {
      await db.query(`DELETE FROM analytics.${table} WHERE url_id = ANY($1)`, [codes]);
    }
    await admin.disconnect();
  }
}

async function visibilityAndMemory() {
  // Visits earlier runs left unread on the topic are not this run's: the bench's group starts
  // at the topic's end, so that the first probe does not wait behind them.
  const group = 'analytics-bench';
  const admin = kafka.admin();
  await admin.connect();
  try {
    // The ends themselves: kafkajs's resetOffsets commits -1, which a consumer reading from
    // the beginning takes as no offset at all.
    const ends = await admin.fetchTopicOffsets(VISITS_TOPIC);
    await admin.setOffsets({
      groupId: group,
      topic: VISITS_TOPIC,
      partitions: ends.map(({ partition, high }) => ({ partition, offset: high })),
    });
  } finally {
    await admin.disconnect();
  }
  const stack = await startStack({
    services: ['analytics', 'links', 'redirect'],
    env: { KAFKA_CONSUMER_GROUP: group },
  });
  try {
    const links = new InternalClient('links', stack.get('links').url, stack.secret);
    const analytics = new InternalClient('analytics', stack.get('analytics').url, stack.secret);
    const redirect = stack.get('redirect');
    await whenReady(stack, ['links', 'redirect', 'analytics']);
    const create = (i) => createLink(links, `https://example.com/pipeline/${i}`);
    const hot = [];
    for (let i = 0; i < 100; i += 1) hot.push(await create(i));

    // Redirect to visible, under a steady 1,000 requests/s of background traffic.
    const background = autocannon({
      url: redirect.url,
      connections: 10,
      overallRate: 1000,
      duration: Math.ceil(SAMPLES * 0.4) + 30,
      requests: hot.map((code) => ({ method: 'GET', path: `/r/${code}` })),
    });
    // One probe: redirect, then poll the visitors API until the visit is there.
    const probe = async (name, timeoutMs) => {
      const code = await create(name);
      const sentAt = Date.now();
      await fetch(`${redirect.url}/r/${code}`, { redirect: 'manual' });
      await waitFor(
        async () => {
          const page = await analytics.request('GET', `/internal/visits/${code}?limit=1`);
          return page.body.visits?.length === 1;
        },
        { intervalMs: 5, timeoutMs, what: 'a visit to become visible' },
      );
      return Date.now() - sentAt;
    };
    // The first visit waits for the consumer to join its group (up to a session timeout
    // when an earlier member left uncleanly): reported apart, not counted in the samples.
    const first = await probe('warm-up', 90_000);
    console.log(`first visit visible after ${first} ms (includes the consumer joining its group)`);
    const latencies = [];
    for (let i = 0; i < SAMPLES; i += 1) latencies.push(await probe(`probe-${i}`, 30_000));
    background.stop();
    latencies.sort((a, b) => a - b);
    console.log(
      `redirect to visible in the visitors API (${SAMPLES} samples, 1,000 req/s background): p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, max ${latencies.at(-1)} ms`,
    );

    // Resident memory of the redirect service under full load, run with its image's Node
    // options (services/redirect/package.json config.nodeOptions; testkit applies them).
    const pid = redirect.child.pid;
    const idle = rssMb(pid);
    const stopSampling = rssPeak(pid);
    const full = await autocannon({
      url: redirect.url,
      connections: 50,
      duration: 20,
      requests: hot.map((code) => ({ method: 'GET', path: `/r/${code}` })),
    });
    const peak = stopSampling();
    console.log(
      `redirect resident memory: ${idle.toFixed(0)} MB idle, ${peak.toFixed(0)} MB peak under ${Math.round(full.requests.average)} req/s`,
    );
    return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), idle, peak };
  } finally {
    await stack.stop();
  }
}

const kafka = new Kafka({
  clientId: 'bench',
  brokers: testServers.kafkaBrokers,
  logLevel: logLevel.NOTHING,
});
const db = new pg.Client({ connectionString: testServers.databaseUrl });
await db.connect();
try {
  if (args.only !== 'visibility') {
    console.log('1. sustained ingest');
    await ingest(kafka, db);
  }
  if (args.only !== 'ingest') {
    console.log('2-3. redirect to visible, and redirect memory');
    await visibilityAndMemory();
  }
} finally {
  await db.end();
}
