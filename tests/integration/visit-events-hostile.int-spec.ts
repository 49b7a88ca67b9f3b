import { randomInt, randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { Client } from 'pg';
import { InternalClient } from '@shortener/chassis';
import {
  SHORT_CODE_ALPHABET,
  VISIT_EVENT_SCHEMA_VERSION,
  VISIT_RECORD_MAX_EVENTS,
  encodeVisitRecord,
  internalApi,
  type VisitEvent,
} from '@shortener/contracts';
import {
  freePort,
  readTopic,
  startServiceProcess,
  testServers,
  waitFor,
  type ServiceProcess,
  type TopicReader,
} from '@shortener/testkit';

// Hostile visit events against the built analytics service on the real PostgreSQL and Kafka:
// an event PostgreSQL refuses must never hold up its partition. Each run has its own topics
// and consumer group, so a wedged partition here (today's code) wedges nothing else.
//
// The second test needs an event that passes the schema yet PostgreSQL refuses. Since the
// schema refuses NUL and lone surrogates there is no such value left in the event itself, so
// the test adds a CHECK constraint (NOT VALID: existing rows untouched) that refuses one
// referrer of this run only: a real refusal by the real database (SQLSTATE 23514), which the
// consumer must isolate by splitting its batch.

const SECRET = randomUUID().replace(/-/g, '');
const RUN = randomUUID().slice(0, 8);
const TOPIC = `visits-hostile-${RUN}`;
const DLQ_TOPIC = `visits.dlq-hostile-${RUN}`;
const GROUP = `analytics-hostile-${RUN}`;
const CONSTRAINT = `visits_hostile_${RUN}`;
const REFUSED_REFERRER = `https://refused.test/${RUN}`;

function newCode(): string {
  return Array.from({ length: 7 }, () => SHORT_CODE_ALPHABET[randomInt(62)]).join('');
}

function visitEvent(urlID: string, overrides: Partial<VisitEvent> = {}): VisitEvent {
  return {
    schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
    id: randomUUID(),
    urlID,
    timestamp: Date.now(),
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0',
    referrer: null,
    ...overrides,
  };
}

describe('hostile visit events', () => {
  let service: ServiceProcess;
  let client: InternalClient;
  let admin: Admin;
  let producer: Producer;
  let deadLetters: TopicReader | undefined;
  let database: Client;
  const dlqGroup = `${GROUP}-dlq-reader`;
  const kafka = new Kafka({
    clientId: 'visit-events-hostile-test',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });

  /** Sends raw values (as a hostile producer would: no schema check) on one key's partition. */
  async function produce(
    key: string,
    values: (string | Buffer)[],
  ): Promise<{ partition: number; last: bigint }> {
    const [sent] = await producer.send({
      topic: TOPIC,
      acks: -1,
      messages: values.map((value) => ({ key, value })),
    });
    return {
      partition: sent!.partition,
      last: BigInt(sent!.baseOffset!) + BigInt(values.length - 1),
    };
  }

  async function count(code: string): Promise<number> {
    const response = await client.call(internalApi.visitCounts, { body: { codes: [code] } });
    return response.body.counts[code] ?? 0;
  }

  async function storedIds(code: string): Promise<string[]> {
    const { rows } = await database.query<{ id: string }>(
      'SELECT id FROM analytics.visits WHERE url_id = $1 ORDER BY id',
      [code],
    );
    return rows.map((row) => row.id);
  }

  async function committedOffset(partition: number): Promise<bigint> {
    const [offsets] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
    const found = offsets?.partitions.find((entry) => entry.partition === partition);
    return BigInt(found?.offset ?? '-1');
  }

  const deadLettersOf = (code: string) =>
    (deadLetters?.messages ?? []).filter((message) => message.key?.toString() === code);

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: TOPIC, numPartitions: 2 },
        { topic: DLQ_TOPIC, numPartitions: 1 },
      ],
    });
    database = new Client({ connectionString: testServers.databaseUrl });
    await database.connect();
    service = await startServiceProcess('analytics', await freePort(), {
      DATABASE_URL: testServers.databaseUrl,
      KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
      KAFKA_CONSUMER_GROUP: GROUP,
      VISITS_TOPIC: TOPIC,
      VISITS_DLQ_TOPIC: DLQ_TOPIC,
      INTERNAL_API_SECRET: SECRET,
    });
    client = new InternalClient('analytics', service.url, SECRET);
    producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    deadLetters = await readTopic(kafka, DLQ_TOPIC, dlqGroup);
    await waitFor(async () => (await fetch(`${service.url}/readyz`)).status === 200, {
      what: 'analytics ready',
      timeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    await database
      ?.query(`ALTER TABLE analytics.visits DROP CONSTRAINT IF EXISTS ${CONSTRAINT}`)
      .catch(() => undefined);
    await database?.end();
    await deadLetters?.stop();
    await producer?.disconnect();
    await service?.stop('SIGKILL');
    // This run's topics and groups: leave no trace on the shared broker.
    await admin?.deleteGroups([GROUP, dlqGroup]).catch(() => undefined);
    await admin?.deleteTopics({ topics: [TOPIC, DLQ_TOPIC] }).catch(() => undefined);
    await admin?.disconnect();
  });

  it('dead-letters an event with a NUL character and stores every visit around it, moving the offset on', async () => {
    const code = newCode();
    const before = visitEvent(code);
    const nul = visitEvent(code, { userAgent: 'Mozilla/5.0\u0000(hostile)' });
    const after = [visitEvent(code), visitEvent(code)];
    const { partition, last } = await produce(
      code,
      [before, nul, ...after].map((event) => JSON.stringify(event)),
    );

    await waitFor(async () => (await count(code)) === 3, {
      what: 'the three good visits stored',
      timeoutMs: 30_000,
    });
    expect(await storedIds(code)).toEqual([before.id, ...after.map((event) => event.id)].sort());
    const [letter] = await waitFor(() => deadLettersOf(code).length > 0 && deadLettersOf(code), {
      what: 'the NUL event dead-lettered',
      timeoutMs: 30_000,
    });
    expect(letter!.value?.toString()).toBe(JSON.stringify(nul));
    expect(letter!.headers?.['dlq-reason']?.toString()).toMatch(/NUL|0x00/);
    await waitFor(async () => (await committedOffset(partition)) === last + 1n, {
      what: `offset ${last + 1n} committed on partition ${partition}`,
      timeoutMs: 30_000,
    });
  });

  it('dead-letters an event dated past the year 9999 and stores every visit around it, moving the offset on', async () => {
    const code = newCode();
    const before = visitEvent(code);
    // The schema takes any positive integer; PostgreSQL reads no six-digit ISO 8601 year.
    const farFuture = visitEvent(code, { timestamp: Date.parse('+010000-01-01T00:00:00.000Z') });
    const after = visitEvent(code);
    const { partition, last } = await produce(
      code,
      [before, farFuture, after].map((event) => JSON.stringify(event)),
    );

    await waitFor(async () => (await count(code)) === 2, {
      what: 'the two good visits stored',
      timeoutMs: 30_000,
    });
    expect(await storedIds(code)).toEqual([before.id, after.id].sort());
    const [letter] = await waitFor(() => deadLettersOf(code).length > 0 && deadLettersOf(code), {
      what: 'the far-future event dead-lettered',
      timeoutMs: 30_000,
    });
    expect(letter!.value?.toString()).toBe(JSON.stringify(farFuture));
    expect(letter!.headers?.['dlq-reason']?.toString()).toBe('timestamp: out of range');
    await waitFor(async () => (await committedOffset(partition)) === last + 1n, {
      what: `offset ${last + 1n} committed on partition ${partition}`,
      timeoutMs: 30_000,
    });
  });

  it('isolates events the database refuses by splitting the batch: dead-lettered with PostgreSQL’s reason, the rest stored, the offset moved on', async () => {
    await database.query(
      `ALTER TABLE analytics.visits ADD CONSTRAINT ${CONSTRAINT}
       CHECK (referrer IS DISTINCT FROM '${REFUSED_REFERRER}') NOT VALID`,
    );
    const code = newCode();
    const events = Array.from({ length: 40 }, () => visitEvent(code));
    const refusedAt = [7, 29];
    for (const index of refusedAt) events[index] = visitEvent(code, { referrer: REFUSED_REFERRER });
    const refused = refusedAt.map((index) => events[index]!);
    const stored = events.filter((event) => !refused.includes(event));
    const { partition, last } = await produce(
      code,
      events.map((event) => JSON.stringify(event)),
    );

    await waitFor(async () => (await count(code)) === stored.length, {
      what: `${stored.length} visits stored`,
      timeoutMs: 30_000,
    });
    expect(await storedIds(code)).toEqual(stored.map((event) => event.id).sort());
    const letters = await waitFor(
      () => deadLettersOf(code).length === refused.length && deadLettersOf(code),
      { what: 'the refused events dead-lettered', timeoutMs: 30_000 },
    );
    expect(letters.map((letter) => letter.value?.toString()).sort()).toEqual(
      refused.map((event) => JSON.stringify(event)).sort(),
    );
    for (const letter of letters) {
      const reason = letter.headers?.['dlq-reason']?.toString() ?? '';
      // PostgreSQL's own words: the constraint it checked and its SQLSTATE.
      expect(reason).toContain(CONSTRAINT);
      expect(reason).toContain('23514');
      expect(letter.headers?.['dlq-source']?.toString()).toMatch(
        new RegExp(`^${TOPIC.replace(/\./g, '\\.')}/${partition}/\\d+$`),
      );
    }
    await waitFor(async () => (await committedOffset(partition)) === last + 1n, {
      what: `offset ${last + 1n} committed on partition ${partition}`,
      timeoutMs: 30_000,
    });
  });

  // Packed records (issue 16): the redirect service sends many visits in one record; earlier
  // versions sent one JSON event a message. Both arrive on the same partitions during an upgrade.

  it('stores packed records and one-event messages on one partition, each visit once (a rolling upgrade)', async () => {
    const code = newCode();
    const [alone, first, second, later] = [0, 1, 2, 3].map(() => visitEvent(code));
    const { partition, last } = await produce(code, [
      JSON.stringify(alone),
      // A redelivery across the upgrade: `alone` again, packed this time.
      encodeVisitRecord([first!, alone!, second!]),
      JSON.stringify(later),
    ]);
    await waitFor(async () => (await count(code)) === 4, {
      what: 'the four visits stored',
      timeoutMs: 30_000,
    });
    expect(await storedIds(code)).toEqual([alone, first, second, later].map((e) => e!.id).sort());
    await waitFor(async () => (await committedOffset(partition)) === last + 1n, {
      what: `offset ${last + 1n} committed on partition ${partition}`,
      timeoutMs: 30_000,
    });
    expect(deadLettersOf(code)).toEqual([]);
  });

  it('dead-letters one bad event of a packed record alone, with its place and reason, and stores the rest', async () => {
    const code = newCode();
    const events = Array.from({ length: 30 }, () => visitEvent(code));
    // One the schema refuses, one PostgreSQL refuses (the constraint of the test above).
    const nul = (events[4] = visitEvent(code, { userAgent: 'Mozilla/5.0\u0000(hostile)' }));
    const refused = (events[21] = visitEvent(code, { referrer: REFUSED_REFERRER }));
    const { partition, last } = await produce(code, [encodeVisitRecord(events)]);

    await waitFor(async () => (await count(code)) === 28, {
      what: 'the 28 good visits stored',
      timeoutMs: 30_000,
    });
    const stored = events.filter((event) => event !== nul && event !== refused);
    expect(await storedIds(code)).toEqual(stored.map((event) => event.id).sort());
    const letters = await waitFor(() => deadLettersOf(code).length === 2 && deadLettersOf(code), {
      what: 'the two bad events dead-lettered',
      timeoutMs: 30_000,
    });
    const byPart = new Map(
      letters.map((letter) => [letter.headers?.['dlq-part']?.toString(), letter]),
    );
    // Each alone, as the one-event message a consumer reads like any other.
    expect(byPart.get('5/30')?.value?.toString()).toBe(JSON.stringify(nul));
    expect(byPart.get('5/30')?.headers?.['dlq-reason']?.toString()).toMatch(/NUL/);
    expect(byPart.get('22/30')?.value?.toString()).toBe(JSON.stringify(refused));
    expect(byPart.get('22/30')?.headers?.['dlq-reason']?.toString()).toContain('23514');
    await waitFor(async () => (await committedOffset(partition)) === last + 1n, {
      what: `offset ${last + 1n} committed on partition ${partition}`,
      timeoutMs: 30_000,
    });
  });

  it('dead-letters whole, with the reason, a record that is truncated, oversized or of an unknown version, and moves on', async () => {
    const code = newCode();
    const good = visitEvent(code);
    const record = encodeVisitRecord([visitEvent(code), visitEvent(code)]);
    const truncated = record.subarray(0, record.length - 3);
    const unknown = Buffer.from(record);
    unknown[1] = 2;
    const tooMany = Buffer.from(record);
    tooMany.writeUInt32BE(VISIT_RECORD_MAX_EVENTS + 1, 2);
    const tooLarge = Buffer.concat([record, Buffer.alloc(1_000_000)]);
    const { partition, last } = await produce(code, [
      truncated,
      unknown,
      tooMany,
      JSON.stringify(good),
      tooLarge,
    ]);

    await waitFor(async () => (await count(code)) === 1, {
      what: 'the good visit stored',
      timeoutMs: 30_000,
    });
    const letters = await waitFor(() => deadLettersOf(code).length === 4 && deadLettersOf(code), {
      what: 'the four records dead-lettered',
      timeoutMs: 30_000,
    });
    const reasons = new Map(
      letters.map((letter) => [letter.headers?.['dlq-reason']?.toString(), letter.value]),
    );
    expect([...reasons.keys()].sort()).toEqual(
      [
        'truncated record: event 2 of 2',
        'unknown record version 2',
        `oversized record: ${VISIT_RECORD_MAX_EVENTS + 1} events`,
        `oversized record: ${tooLarge.length} bytes`,
      ].sort(),
    );
    // Whole, byte for byte, as they came.
    expect(reasons.get('truncated record: event 2 of 2')).toEqual(truncated);
    expect(reasons.get(`oversized record: ${tooLarge.length} bytes`)).toEqual(tooLarge);
    expect(await storedIds(code)).toEqual([good.id]);
    await waitFor(async () => (await committedOffset(partition)) === last + 1n, {
      what: `offset ${last + 1n} committed on partition ${partition}`,
      timeoutMs: 30_000,
    });
  });

  it('dead-letters several large unreadable records that arrive together, none holding up the partition', async () => {
    const code = newCode();
    // Three records of an unknown version, about 600 KB each: fetched in one batch, more than
    // Kafka takes in one produce request, so they cannot all go to the dead-letter topic at once.
    const large = [1, 2, 3].map((n) => {
      const raw = Buffer.alloc(600_000, n);
      raw[0] = 0;
      raw[1] = 9;
      return raw;
    });
    let last = 0n;
    let partition = 0;
    for (const raw of large) ({ partition, last } = await produce(code, [raw]));
    const good = visitEvent(code);
    ({ partition, last } = await produce(code, [JSON.stringify(good)]));

    await waitFor(async () => (await count(code)) === 1, {
      what: 'the good visit after them stored',
      timeoutMs: 30_000,
    });
    const letters = await waitFor(() => deadLettersOf(code).length === 3 && deadLettersOf(code), {
      what: 'the three records dead-lettered',
      timeoutMs: 30_000,
    });
    expect(letters.map((letter) => letter.value?.[2]).sort()).toEqual([1, 2, 3]);
    for (const letter of letters) {
      expect(letter.headers?.['dlq-reason']?.toString()).toBe('unknown record version 9');
      expect(letter.value?.length).toBe(600_000);
    }
    await waitFor(async () => (await committedOffset(partition)) === last + 1n, {
      what: `offset ${last + 1n} committed on partition ${partition}`,
      timeoutMs: 30_000,
    });
  });
});
