import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { Client } from 'pg';
import { InternalClient } from '@shortener/chassis';
import {
  encodeVisitRecord,
  internalApi,
  VISIT_EVENT_SCHEMA_VERSION,
  VISIT_HAND_OFF_MAX,
  VISIT_HAND_OFF_MAX_BYTES,
  type VisitEvent,
} from '@shortener/contracts';
import { startStack, testServers, waitFor, type Stack } from '@shortener/testkit';

// Analytics' internal ingest, the second path of visits (a redirect instance stopping while
// Kafka is away hands over what it holds): on the real PostgreSQL and Kafka, with a topic of
// its own, the same events by hand-off, again, and then from Kafka are stored once; bad input
// is refused whole with a clear answer and stores nothing.

const run = randomUUID().slice(0, 8);
const TOPIC = `hand-off-test-${run}`;
const HAND_OFF = internalApi.handOffVisits;

const visit = (urlID: string, overrides: Partial<VisitEvent> = {}): VisitEvent => ({
  schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
  id: randomUUID(),
  urlID,
  timestamp: Date.now(),
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 hand-off test',
  referrer: null,
  ...overrides,
});

describe('analytics: visits handed off by a stopping redirect instance', () => {
  const kafka = new Kafka({
    clientId: 'hand-off-test',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  let admin: Admin;
  let db: Client;
  let stack: Stack | undefined;
  let analytics: InternalClient;

  /** Rows stored for a code, and its count in link_stats. */
  const stored = async (code: string): Promise<{ rows: number; counted: number }> => {
    const { rows } = await db.query<{ rows: number; counted: number }>(
      `SELECT (SELECT count(*)::int FROM analytics.visits WHERE url_id = $1) AS rows,
              coalesce((SELECT visit_count::int FROM analytics.link_stats WHERE url_id = $1), 0)
                AS counted`,
      [code],
    );
    return rows[0]!;
  };

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: TOPIC, numPartitions: 1 }],
    });
    db = new Client({ connectionString: testServers.databaseUrl });
    await db.connect();
    stack = await startStack({
      services: ['analytics'],
      env: { VISITS_TOPIC: TOPIC, KAFKA_CONSUMER_GROUP: `${TOPIC}-group` },
    });
    analytics = new InternalClient('analytics', stack.get('analytics').url, stack.secret, 10_000);
    await waitFor(async () => (await fetch(`${stack!.get('analytics').url}/readyz`)).ok, {
      what: 'analytics ready',
      timeoutMs: 60_000,
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await admin?.deleteTopics({ topics: [TOPIC] }).catch(() => undefined);
    await admin?.disconnect();
    await db?.end();
  });

  it('stores each visit once, however often it is handed off and when it also comes from Kafka', async () => {
    const code = `ho${run.slice(0, 5)}`;
    const visits = Array.from({ length: 30 }, (_, i) => visit(code, { timestamp: Date.now() - i }));

    const first = await analytics.call(HAND_OFF, { body: { visits } });
    expect(first).toEqual({ status: 200, body: { taken: 30, refused: 0 } });
    expect(await stored(code)).toEqual({ rows: 30, counted: 30 });

    // Handed off again (an answer lost on the way): nothing more.
    const again = await analytics.call(HAND_OFF, { body: { visits } });
    expect(again).toEqual({ status: 200, body: { taken: 30, refused: 0 } });
    expect(await stored(code)).toEqual({ rows: 30, counted: 30 });

    // Kafka had them too (a send it took but never acknowledged), with five new ones.
    const fresh = Array.from({ length: 5 }, () => visit(code));
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: TOPIC,
      messages: [{ key: code, value: encodeVisitRecord([...visits, ...fresh]) }],
    });
    await producer.disconnect();
    await waitFor(async () => (await stored(code)).rows === 35, {
      what: 'the five new visits from Kafka stored',
      timeoutMs: 60_000,
    });
    expect(await stored(code)).toEqual({ rows: 35, counted: 35 });
  });

  it('answers a visit PostgreSQL cannot store as refused, storing the others', async () => {
    const code = `hr${run.slice(0, 5)}`;
    const far = Date.parse('9999-12-31T23:59:59.999Z') + 1;
    const visits = [visit(code), visit(code, { timestamp: far }), visit(code)];
    const answer = await analytics.call(HAND_OFF, { body: { visits } });
    expect(answer).toEqual({ status: 200, body: { taken: 2, refused: 1 } });
    expect(await stored(code)).toEqual({ rows: 2, counted: 2 });
  });

  it('refuses bad or oversized input whole, with a clear answer, storing nothing', async () => {
    const code = `hb${run.slice(0, 5)}`;
    const good = Array.from({ length: 5 }, () => visit(code));
    const path = HAND_OFF.route;
    const refusals = [
      [[...good, { ...visit(code), id: 'not-a-uuid' }], 400, /visits\.5\.id/],
      [[...good, { ...visit(code), urlID: 'bad code!' }], 400, /visits\.5\.urlID/],
      [[...good, { ...visit(code), schemaVersion: 2 }], 400, /visits\.5\.schemaVersion/],
      [[], 400, /visits/],
      [Array.from({ length: VISIT_HAND_OFF_MAX + 1 }, () => visit(code)), 400, /visits/],
      ['not an array', 400, /visits/],
    ] as const;
    for (const [visits, status, message] of refusals) {
      const answer = await analytics.request('POST', path, { body: { visits } });
      expect({
        status: answer.status,
        message: (answer.body as { message: string }).message,
      }).toEqual({
        status,
        message: expect.stringMatching(message) as unknown,
      });
    }
    // A body over the limit is not even read.
    const agent = 'x'.repeat(1000);
    const huge = Array.from({ length: VISIT_HAND_OFF_MAX }, () =>
      visit(code, { userAgent: agent }),
    );
    expect(JSON.stringify({ visits: huge }).length).toBeGreaterThan(VISIT_HAND_OFF_MAX_BYTES);
    const tooLarge = await analytics.request('POST', path, { body: { visits: huge } });
    expect(tooLarge).toEqual({ status: 413, body: { message: 'Request body too large' } });
    // The hand-off's limit is its own: analytics' other routes still read 16 KB at most.
    const counts = await analytics.request('POST', internalApi.visitCounts.route, {
      body: { codes: Array.from({ length: 4000 }, (_, i) => `c${i.toString().padStart(6, '0')}`) },
    });
    expect(counts).toEqual({ status: 413, body: { message: 'Request body too large' } });
    // Without the internal token: 401.
    const unsigned = await fetch(`${stack!.get('analytics').url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ visits: good }),
    });
    expect(unsigned.status).toBe(401);
    expect(await stored(code)).toEqual({ rows: 0, counted: 0 });
  });
});
