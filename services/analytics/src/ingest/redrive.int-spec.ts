import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { Client } from 'pg';
import {
  encodeVisitRecord,
  VISIT_EVENT_SCHEMA_VERSION,
  type VisitEvent,
} from '@shortener/contracts';
import { startStack, testServers, waitFor, type Stack } from '@shortener/testkit';

// Dead letters re-driven, end to end: the analytics service on topics of its own, a packed
// record with good visits and visits PostgreSQL refuses (a CHECK constraint stands for the
// cause), the cause removed, then the command as an operator runs it
// (node dist/redrive-dead-letters.js): with --dry-run nothing moves, then every good visit
// is stored once, however often the re-drive runs.

const run = randomUUID().slice(0, 8);
const TOPIC = `redrive-test-${run}`;
const DLQ = `${TOPIC}.dlq`;
const CODE = `rd${run.slice(0, 5)}`;
const POISON = `https://poison.example/${run}`;
const CONSTRAINT = `redrive_test_${run.replace(/-/g, '')}`;
const COMMAND = path.join(__dirname, '../../dist/redrive-dead-letters.js');

const exec = promisify(execFile);

describe('re-driving dead letters (redrive-dead-letters)', () => {
  const kafka = new Kafka({
    clientId: 'redrive-test',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  let admin: Admin;
  let producer: Producer;
  let db: Client;
  let stack: Stack | undefined;

  const stored = async (): Promise<number> =>
    (
      await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM analytics.visits WHERE url_id = $1',
        [CODE],
      )
    ).rows[0]!.n;
  const deadLetters = async (): Promise<number> =>
    (await admin.fetchTopicOffsets(DLQ)).reduce((sum, { high }) => sum + Number(high), 0);

  /** The command as an operator runs it, with the service's environment; its JSON report. */
  const command = async (...args: string[]): Promise<Record<string, unknown>> => {
    const { stdout } = await exec(process.execPath, [COMMAND, ...args], {
      env: {
        ...process.env,
        ...stack!.env,
        VISITS_TOPIC: TOPIC,
        VISITS_DLQ_TOPIC: DLQ,
        LOG_LEVEL: 'warn',
      },
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: TOPIC, numPartitions: 2 },
        { topic: DLQ, numPartitions: 1 },
      ],
    });
    producer = kafka.producer();
    await producer.connect();
    db = new Client({ connectionString: testServers.databaseUrl });
    await db.connect();
    stack = await startStack({
      services: ['analytics'],
      env: {
        VISITS_TOPIC: TOPIC,
        VISITS_DLQ_TOPIC: DLQ,
        KAFKA_CONSUMER_GROUP: `${TOPIC}-group`,
      },
    });
    await waitFor(async () => (await fetch(`${stack!.get('analytics').url}/readyz`)).ok, {
      what: 'analytics ready',
      timeoutMs: 60_000,
    });
    // The cause: PostgreSQL refuses visits from this referrer (SQLSTATE 23514).
    await db.query(
      `ALTER TABLE analytics.visits ADD CONSTRAINT ${CONSTRAINT}
         CHECK (referrer IS DISTINCT FROM '${POISON}') NOT VALID`,
    );
  }, 120_000);

  afterAll(async () => {
    await db?.query(`ALTER TABLE analytics.visits DROP CONSTRAINT IF EXISTS ${CONSTRAINT}`);
    await stack?.stop();
    await producer?.disconnect();
    await admin?.deleteTopics({ topics: [TOPIC, DLQ] }).catch(() => undefined);
    await admin?.disconnect();
    await db?.end();
  });

  it('sends the letters back once their cause is fixed, and every good visit is stored once', async () => {
    const now = Date.now();
    const events: VisitEvent[] = Array.from({ length: 10 }, (_, i) => ({
      schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
      id: randomUUID(),
      urlID: CODE,
      timestamp: now - i,
      ip: '203.0.113.7',
      userAgent: 'Mozilla/5.0 redrive test',
      referrer: i < 3 ? POISON : null,
    }));
    await producer.send({
      topic: TOPIC,
      messages: [{ key: CODE, value: encodeVisitRecord(events) }],
    });
    // The good seven are stored; the three refused are dead-lettered, one letter each.
    await waitFor(async () => (await stored()) === 7 && (await deadLetters()) === 3, {
      what: '7 stored and 3 dead-lettered',
      timeoutMs: 60_000,
    });

    // Before the fix, a filter that matches nothing moves nothing.
    expect(await command('--reason', 'no such reason')).toMatchObject({
      redriven: 0,
      read: 3,
      skipped: { filtered: 3, truncated: 0 },
    });
    expect(await command('--from', new Date(Date.now() + 60_000).toISOString())).toMatchObject({
      redriven: 0,
      skipped: { filtered: 3 },
    });

    await db.query(`ALTER TABLE analytics.visits DROP CONSTRAINT ${CONSTRAINT}`);

    const dry = await command('--dry-run');
    expect(dry).toMatchObject({ dryRun: true, wouldRedrive: 3, read: 3 });
    // Each letter's reason, as PostgreSQL gave it, is what it is counted under.
    expect(Object.keys(dry['byReason'] as object).join(' ')).toMatch(new RegExp(CONSTRAINT));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await stored()).toBe(7);

    expect(await command('--reason', CONSTRAINT)).toMatchObject({ dryRun: false, redriven: 3 });
    await waitFor(async () => (await stored()) === 10, { what: '10 stored', timeoutMs: 60_000 });

    // Again: the same letters go back, and are skipped by event id.
    expect(await command()).toMatchObject({ redriven: 3 });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await stored()).toBe(10);
    const ids = await db.query<{ id: string }>(
      'SELECT id::text FROM analytics.visits WHERE url_id = $1 ORDER BY id',
      [CODE],
    );
    expect(ids.rows.map((row) => row.id)).toEqual(events.map((event) => event.id).sort());
    // Nothing failed again: the dead-letter topic holds the three letters it had.
    expect(await deadLetters()).toBe(3);
  }, 180_000);

  it.each([['yesterday'], ['2026-11-26T10:00']])(
    'refuses a time it cannot read or that has no zone (%s), saying how to write one',
    async (value) => {
      await expect(command('--from', value)).rejects.toMatchObject({
        stderr: expect.stringContaining('is not a time with its zone (ISO 8601') as unknown,
      });
    },
  );
});
