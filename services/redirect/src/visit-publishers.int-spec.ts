import { randomInt, randomUUID } from 'node:crypto';
import { Kafka, logLevel, Partitioners, type Admin, type Consumer, type Producer } from 'kafkajs';
import {
  SHORT_CODE_ALPHABET,
  VISIT_EVENT_SCHEMA_VERSION,
  encodeVisits,
  decodeVisits,
  readVisitTraces,
  VISIT_TRACES_HEADER,
  VISIT_UTM_HEADER,
  type RecordedVisit,
  type VisitEvent,
  type VisitTrace,
} from '@shortener/contracts';
import { createProducer } from '@shortener/chassis-kafka';
import { testServers, waitFor } from '@shortener/testkit';
import { KafkaVisitPublisher } from './visit-publishers';

// The redirect's publisher against the real broker, on a topic of this run's own with three
// partitions: visits leave packed in records, every visit exactly once, each link's visits on
// the partition a message keyed by its code goes to (as the one-event messages of earlier
// versions did), in the order they were queued.

const RUN = randomUUID().slice(0, 8);
const TOPIC = `visits-packed-${RUN}`;
const PARTITIONS = 3;

function newCode(): string {
  return Array.from({ length: 7 }, () => SHORT_CODE_ALPHABET[randomInt(62)]).join('');
}

interface Received {
  partition: number;
  events: RecordedVisit[];
  /** What its trace header holds (none without one). */
  traces: VisitTrace[];
  /** The record's events as a reader of its value alone (the release before) reads them. */
  plain: RecordedVisit[];
  hasUtmHeader: boolean;
}

describe('KafkaVisitPublisher', () => {
  const kafka = new Kafka({
    clientId: 'visit-publisher-test',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  let admin: Admin;
  let producer: Producer;
  let keyed: Producer;
  let consumer: Consumer;
  const received: Received[] = [];

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: TOPIC, numPartitions: PARTITIONS }],
    });
    producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 1 });
    keyed = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await Promise.all([producer.connect(), keyed.connect()]);
    consumer = kafka.consumer({ groupId: `${TOPIC}-reader` });
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await consumer.run({
      eachMessage: ({ partition, message }) => {
        // A record's events; none for anything else (the keyed one-event probes below).
        const utm = message.headers?.[VISIT_UTM_HEADER];
        const read = decodeVisits(message.value, utm);
        const plain = decodeVisits(message.value);
        received.push({
          partition,
          events: read.ok ? (read.recorded ?? []) : [],
          traces: readVisitTraces(message.headers?.[VISIT_TRACES_HEADER]),
          plain: plain.ok ? (plain.recorded ?? []) : [],
          hasUtmHeader: utm !== undefined,
        });
        return Promise.resolve();
      },
    });
  }, 60_000);

  afterAll(async () => {
    await consumer?.disconnect();
    await Promise.all([producer?.disconnect(), keyed?.disconnect()]);
    await admin?.deleteGroups([`${TOPIC}-reader`]).catch(() => undefined);
    await admin?.deleteTopics({ topics: [TOPIC] }).catch(() => undefined);
    await admin?.disconnect();
  });

  it('packs visits into a few records per partition, each link on its keyed partition, once each and in order', async () => {
    const codes = Array.from({ length: 40 }, newCode);
    const events: VisitEvent[] = Array.from({ length: 3000 }, (_, index) => ({
      schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
      id: randomUUID(),
      urlID: codes[index % codes.length]!,
      timestamp: 1_764_000_000_000 + index,
      ip: `203.0.113.${index % 250}`,
      userAgent: `Mozilla/5.0 (test ${index})`,
      referrer: index % 3 === 0 ? null : `https://example.com/${index}`,
    }));
    // Small records, so that a partition's visits need several.
    const publisher = new KafkaVisitPublisher(producer, () => PARTITIONS, {
      topic: TOPIC,
      recordBytes: 16 * 1024,
    });
    // As the queue hands them over: runs of encoded visits.
    await publisher.publish([encodeVisits(events.slice(0, 1000))]);
    await publisher.publish([
      encodeVisits(events.slice(1000, 1700)),
      encodeVisits(events.slice(1700)),
    ]);

    const got = await waitFor(
      () =>
        received.reduce((sum, record) => sum + record.events.length, 0) === events.length &&
        received,
      { what: 'every visit received', timeoutMs: 30_000 },
    );
    // Packed: no one-event messages, and far fewer records than visits.
    expect(got.every((record) => record.events.length > 0)).toBe(true);
    // Nothing traced, no trace header.
    expect(got.every((record) => record.traces.length === 0)).toBe(true);
    expect(got.length).toBeLessThan(events.length / 20);

    const byId = new Map(events.map((event) => [event.id, event]));
    const seen = got.flatMap((record) => record.events);
    expect(new Set(seen.map((event) => event.id)).size).toBe(events.length);
    for (const event of seen) {
      expect({ schemaVersion: VISIT_EVENT_SCHEMA_VERSION, ...event }).toEqual(byId.get(event.id));
    }

    // Where a message keyed by each code goes, with kafkajs's default partitioner.
    const keyedPartition = new Map<string, number>();
    for (const code of codes) {
      const [sent] = await keyed.send({ topic: TOPIC, messages: [{ key: code, value: '{}' }] });
      keyedPartition.set(code, sent!.partition);
    }
    expect(new Set(keyedPartition.values()).size).toBeGreaterThan(1);
    for (const record of got) {
      for (const event of record.events) {
        expect(record.partition).toBe(keyedPartition.get(event.urlID));
      }
    }
    // Each link's visits in the order they were queued (a partition is read in order).
    for (const code of codes) {
      const stamps = seen.filter((event) => event.urlID === code).map((e) => e.timestamp);
      expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    }
  });

  it("puts in each record's trace header the trace contexts of its traced visits, and only theirs", async () => {
    const codes = Array.from({ length: 6 }, newCode);
    const events: VisitEvent[] = Array.from({ length: 300 }, (_, index) => ({
      schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
      id: randomUUID(),
      urlID: codes[index % codes.length]!,
      timestamp: 1_764_000_000_000 + index,
      ip: '203.0.113.5',
      userAgent: 'Mozilla/5.0',
      referrer: null,
    }));
    // Every third visit traced, each by a trace of its own.
    const traceOf = new Map<string, VisitTrace>();
    const runs = [events.slice(0, 120), events.slice(120)].map((slice) => {
      const run = encodeVisits(slice);
      const traces = slice.map((event, index) => {
        if (index % 3 !== 0) return undefined;
        const trace = {
          traceId: randomUUID().replace(/-/g, ''),
          spanId: randomUUID().replace(/-/g, '').slice(0, 16),
          traceFlags: 1,
        };
        traceOf.set(event.id, trace);
        return trace;
      });
      return { ...run, traces };
    });
    const publisher = new KafkaVisitPublisher(producer, () => PARTITIONS, {
      topic: TOPIC,
      recordBytes: 4 * 1024,
    });
    await publisher.publish(runs);

    const ours = () => received.filter((record) => codes.includes(record.events[0]?.urlID ?? ''));
    const got = await waitFor(
      () =>
        ours().reduce((sum, record) => sum + record.events.length, 0) === events.length && ours(),
      { what: 'every traced visit received', timeoutMs: 30_000 },
    );
    expect(got.length).toBeGreaterThan(PARTITIONS);
    for (const record of got) {
      const expected = record.events.flatMap((event) => traceOf.get(event.id) ?? []);
      expect(record.traces).toEqual(expected);
    }
    expect(got.flatMap((record) => record.traces)).toHaveLength(traceOf.size);
  });

  it("keeps visits' campaign fields out of the value, in the record's utm header: the release before reads every visit", async () => {
    const codes = Array.from({ length: 4 }, newCode);
    const events: VisitEvent[] = Array.from({ length: 200 }, (_, index) => ({
      schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
      id: randomUUID(),
      urlID: codes[index % codes.length]!,
      timestamp: 1_764_000_000_000 + index,
      ip: '203.0.113.9',
      userAgent: 'Mozilla/5.0',
      referrer: null,
      ...(index % 2 === 0
        ? { utmSource: `source ${index}`, utmMedium: 'email', utmCampaign: 'spring 🌷' }
        : {}),
    }));
    const publisher = new KafkaVisitPublisher(producer, () => PARTITIONS, {
      topic: TOPIC,
      recordBytes: 2 * 1024,
    });
    await publisher.publish([encodeVisits(events)]);

    const ours = () => received.filter((record) => codes.includes(record.plain[0]?.urlID ?? ''));
    const got = await waitFor(
      () => ours().reduce((sum, record) => sum + record.plain.length, 0) === 200 && ours(),
      { what: 'every tagged visit received', timeoutMs: 30_000 },
    );
    expect(got.length).toBeGreaterThan(PARTITIONS);
    const byId = new Map(events.map((event) => [event.id, event]));
    for (const record of got) {
      // Every visit read from the value alone, without its campaign fields...
      expect(record.events).toHaveLength(record.plain.length);
      for (const event of record.plain) expect(event).not.toHaveProperty('utmSource');
      // ...and whole with the header.
      for (const event of record.events) {
        expect({ schemaVersion: VISIT_EVENT_SCHEMA_VERSION, ...event }).toEqual(byId.get(event.id));
      }
      expect(record.hasUtmHeader).toBe(record.events.some((event) => 'utmSource' in event));
    }
  });

  it('refuses to publish before it knows how many partitions there are (the queue keeps the visits)', async () => {
    const publisher = new KafkaVisitPublisher(producer, () => undefined, { topic: TOPIC });
    const visit: VisitEvent = {
      schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
      id: randomUUID(),
      urlID: newCode(),
      timestamp: Date.now(),
      ip: '203.0.113.1',
      userAgent: '',
      referrer: null,
    };
    await expect(publisher.publish([encodeVisits([visit])])).rejects.toThrow(
      `the partitions of ${TOPIC}`,
    );
  });
});
