import { randomInt, randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { InternalClient } from '@shortener/chassis';
import {
  SHORT_CODE_ALPHABET,
  VISIT_EVENT_SCHEMA_VERSION,
  VISITS_PAGE_DEFAULT,
  internalApi,
  internalErrorSchema,
  type VisitEvent,
  type VisitsPage,
  type VisitsPageQuery,
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

// The built service as its own process, on the real PostgreSQL and Kafka: events produced to
// its visits topic come out of its internal API. Codes are random per test, so runs never
// collide. The topics are this run's own: on the shared `visits` topic every other suite's
// analytics (each its own consumer group) would dead-letter this suite's bad messages too, and
// the dead-letter test would see them two, four or six times.

const SECRET = randomUUID().replace(/-/g, '');
const RUN = randomUUID().slice(0, 8);
const TOPIC = `visits-int-${RUN}`;
const DLQ_TOPIC = `visits.dlq-int-${RUN}`;
const GROUP = `analytics-int-test-${RUN}`;
const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

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
    userAgent: CHROME_WINDOWS,
    referrer: null,
    ...overrides,
  };
}

describe('analytics service', () => {
  let service: ServiceProcess;
  let client: InternalClient;
  let producer: Producer;
  let deadLetters: TopicReader;
  const kafka = new Kafka({
    clientId: 'analytics-int-test',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });

  async function produce(key: string, values: Array<VisitEvent | string>): Promise<void> {
    await producer.send({
      topic: TOPIC,
      messages: values.map((value) => ({
        key,
        value: typeof value === 'string' ? value : JSON.stringify(value),
      })),
    });
  }

  async function page(
    code: string,
    query: VisitsPageQuery = {},
  ): Promise<{ status: 200; body: VisitsPage }> {
    const response = await client.call(internalApi.visitsPage, { params: { code }, query });
    if (response.status !== 200) throw new Error(`page refused: ${response.body.message}`);
    return response;
  }

  async function counts(codes: string[]): Promise<Record<string, number>> {
    const response = await client.call(internalApi.visitCounts, { body: { codes } });
    return response.body.counts;
  }

  async function untilCount(code: string, expected: number): Promise<void> {
    await waitFor(async () => (await counts([code]))[code] === expected, {
      what: `${expected} visits of ${code}`,
      timeoutMs: 30_000,
    });
  }

  beforeAll(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: TOPIC, numPartitions: 2 },
        { topic: DLQ_TOPIC, numPartitions: 1 },
      ],
    });
    await admin.disconnect();
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
    deadLetters = await readTopic(kafka, DLQ_TOPIC, `analytics-int-test-dlq-${RUN}`);
    await waitFor(async () => (await fetch(`${service.url}/readyz`)).status === 200, {
      what: 'analytics ready',
      timeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    await deadLetters?.stop();
    await producer?.disconnect();
    await service?.stop('SIGKILL');
    // This run's topics and groups: leave no trace on the shared broker.
    const admin = kafka.admin();
    await admin.connect();
    const groups = [GROUP, ...(deadLetters ? [deadLetters.groupId] : [])];
    await admin.deleteGroups(groups).catch(() => undefined);
    await admin.deleteTopics({ topics: [TOPIC, DLQ_TOPIC] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('stores an event as a visit, User-Agent parsed into platform and browser, and counts it', async () => {
    const code = newCode();
    const event = visitEvent(code, { timestamp: Date.parse('2026-11-23T10:00:00.123Z') });
    await produce(code, [event]);
    await untilCount(code, 1);

    expect(await page(code)).toEqual({
      status: 200,
      body: {
        visits: [
          {
            _id: event.id,
            createdAt: '2026-11-23T10:00:00.123Z',
            userAgent: { platform: 'Windows', browser: 'Chrome' },
            ipAddress: '203.0.113.7',
            bot: false,
            referrer: null,
            utmSource: null,
            utmMedium: null,
            utmCampaign: null,
          },
        ],
        nextCursor: null,
      },
    });
  });

  it("answers each visit's referrer as the stats count it: its host, '(unknown)', or null", async () => {
    const code = newCode();
    const start = Date.parse('2026-11-23T11:00:00.000Z');
    await produce(code, [
      visitEvent(code, { timestamp: start, referrer: 'https://News.Example.org/a?id=1' }),
      visitEvent(code, { timestamp: start + 1, referrer: 'not a url' }),
      visitEvent(code, { timestamp: start + 2, referrer: null }),
    ]);
    await untilCount(code, 3);

    const { body } = await page(code);
    expect(body.visits.map((visit) => visit.referrer)).toEqual([
      null,
      '(unknown)',
      'news.example.org',
    ]);
  });

  it('stores an event delivered twice once', async () => {
    const code = newCode();
    const event = visitEvent(code);
    const later = visitEvent(code, { timestamp: event.timestamp + 1 });
    await produce(code, [event]);
    await produce(code, [event, later]);
    await untilCount(code, 2);

    const { body } = await page(code);
    expect(body.visits.map((visit) => visit._id)).toEqual([later.id, event.id]);
  });

  it('dead-letters a message that is not JSON and one of an unknown schema version, and stores the events after them', async () => {
    const code = newCode();
    const good = visitEvent(code);
    const unknownVersion = JSON.stringify({ ...visitEvent(code), schemaVersion: 99 });
    // One key, so all three are on the same partition, the bad ones first.
    await produce(code, ['this is not JSON', unknownVersion, good]);
    await untilCount(code, 1);
    expect((await page(code)).body.visits.map((visit) => visit._id)).toEqual([good.id]);

    const ours = await waitFor(
      () => {
        const found = deadLetters.messages.filter((message) => message.key?.toString() === code);
        return found.length === 2 && found;
      },
      { what: 'two dead letters', timeoutMs: 30_000 },
    );
    expect(ours.map((message) => message.value?.toString())).toEqual([
      'this is not JSON',
      unknownVersion,
    ]);
    expect(ours.map((message) => message.headers?.['dlq-reason']?.toString())).toEqual([
      'not JSON',
      expect.stringContaining('schemaVersion'),
    ]);
  });

  it('pages a link’s visitors newest first with a cursor', async () => {
    const code = newCode();
    const start = Date.parse('2026-11-01T00:00:00.000Z');
    // Pairs share a timestamp, so the order also depends on the id tie-break.
    const events = Array.from({ length: 120 }, (_, index) =>
      visitEvent(code, { timestamp: start + Math.floor(index / 2) * 1000 }),
    );
    await produce(code, events);
    await untilCount(code, 120);

    const expected = [...events]
      .sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1))
      .map((event) => event.id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const response = await page(code, { limit: 50, cursor: cursor ?? undefined });
      expect(response.status).toBe(200);
      sizes.push(response.body.visits.length);
      seen.push(...response.body.visits.map((visit) => visit._id));
      cursor = response.body.nextCursor;
    } while (cursor !== null);
    expect(sizes).toEqual([50, 50, 20]);
    expect(seen).toEqual(expected);

    const firstPage = await page(code);
    expect(firstPage.body.visits).toHaveLength(VISITS_PAGE_DEFAULT);
  });

  it('rejects a bad cursor, a bad limit and a malformed code with 400 and a message', async () => {
    const code = newCode();
    for (const path of [
      `/internal/visits/${code}?cursor=not-a-cursor`,
      `/internal/visits/${code}?limit=abc`,
      '/internal/visits/bad!code',
    ]) {
      const response = await client.request('GET', path);
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(internalErrorSchema.parse(response.body).message).not.toBe('');
    }
    const badBody = await client.request('POST', '/internal/visit-counts', {
      body: { codes: 'AbC1234' },
    });
    expect(badBody.status).toBe(400);
    expect(internalErrorSchema.parse(badBody.body).message).not.toBe('');
  });

  it('counts visits of several links in one call, 0 for a link without any', async () => {
    const [one, two, none] = [newCode(), newCode(), newCode()];
    await produce(one, [visitEvent(one)]);
    await produce(two, [visitEvent(two), visitEvent(two), visitEvent(two)]);
    await untilCount(two, 3);
    await untilCount(one, 1);
    expect(await counts([one, two, none])).toEqual({ [one]: 1, [two]: 3, [none]: 0 });
  });

  it('deletes a link’s visits and count, and drops a late event of the deleted link', async () => {
    const code = newCode();
    await produce(code, [visitEvent(code), visitEvent(code), visitEvent(code)]);
    await untilCount(code, 3);

    const removal = await client.call(internalApi.deleteVisits, { body: { codes: [code] } });
    expect(removal).toEqual({ status: 200, body: { deleted: 3 } });
    expect(await counts([code])).toEqual({ [code]: 0 });
    expect((await page(code)).body).toEqual({ visits: [], nextCursor: null });

    // The marker shares the key, so once it is stored the late event before it was handled.
    const marker = newCode();
    await produce(code, [visitEvent(code), visitEvent(marker)]);
    await untilCount(marker, 1);
    expect(await counts([code])).toEqual({ [code]: 0 });
    expect((await page(code)).body.visits).toEqual([]);
  });

  it('refuses unsigned and forged internal calls with 401', async () => {
    const path = `/internal/visits/${newCode()}`;
    expect((await fetch(`${service.url}${path}`)).status).toBe(401);
    const forger = new InternalClient('analytics', service.url, 'another-secret-of-32-characters!');
    expect((await forger.request('GET', path)).status).toBe(401);
    expect(
      (await forger.request('POST', '/internal/visits/delete', { body: { codes: [] } })).status,
    ).toBe(401);
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(service.output()).toContain('"msg":"stopped"');
  });
});
