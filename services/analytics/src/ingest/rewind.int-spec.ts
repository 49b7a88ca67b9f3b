import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin, type Consumer } from 'kafkajs';
import { testServers, waitFor } from '@shortener/testkit';
import { GroupNotEmpty, parseRewindTime, rewindGroup, rewoundOffset } from './rewind';

// The rewind after a restore (node dist/rewind-visits.js), on the real broker with a topic
// and group of its own: records of two times on two partitions, then the group set back to
// the later time, refused while a consumer is in the group, and never moved forward.

const run = randomUUID().slice(0, 8);
const TOPIC = `rewind-test-${run}`;
const GROUP = `rewind-test-${run}`;
const BEFORE = Date.parse('2026-11-26T08:00:00Z');
const AFTER = Date.parse('2026-11-26T09:00:00Z');

describe('rewinding the consumer group to a time (rewind-visits)', () => {
  const kafka = new Kafka({
    clientId: 'rewind-test',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  let admin: Admin;
  let consumer: Consumer | undefined;

  const committed = async (): Promise<string[]> => {
    const [topic] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
    return topic!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset);
  };
  const setCommitted = (offsets: string[]) =>
    admin.setOffsets({
      groupId: GROUP,
      topic: TOPIC,
      partitions: offsets.map((offset, partition) => ({ partition, offset })),
    });

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: TOPIC, numPartitions: 2 }],
    });
    const producer = kafka.producer();
    await producer.connect();
    // Per partition: 3 records of the earlier hour, then 2 of the later (offsets 3 and 4).
    for (const partition of [0, 1]) {
      await producer.send({
        topic: TOPIC,
        messages: [
          ...[0, 1, 2].map((i) => ({ partition, value: `b${i}`, timestamp: String(BEFORE + i) })),
          ...[0, 1].map((i) => ({ partition, value: `a${i}`, timestamp: String(AFTER + i) })),
        ],
      });
    }
    await producer.disconnect();
    await setCommitted(['5', '5']);
  });

  afterAll(async () => {
    await consumer?.disconnect();
    await admin.deleteGroups([GROUP]).catch(() => undefined);
    await admin.deleteTopics({ topics: [TOPIC] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('refuses while a consumer is in the group, and changes nothing', async () => {
    consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 6000 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC });
    await consumer.run({ autoCommit: false, eachMessage: () => Promise.resolve() });
    await waitFor(
      async () => {
        const { groups } = await admin.describeGroups([GROUP]);
        return groups[0]?.state === 'Stable';
      },
      { what: 'the consumer in its group', timeoutMs: 30_000 },
    );
    await expect(
      rewindGroup(kafka, { group: GROUP, topic: TOPIC, to: AFTER, dryRun: false }),
    ).rejects.toThrow(GroupNotEmpty);
    await consumer.disconnect();
    consumer = undefined;
    expect(await committed()).toEqual(['5', '5']);
  });

  it('with --dry-run reports the rewind and changes nothing', async () => {
    const report = await rewindGroup(kafka, {
      group: GROUP,
      topic: TOPIC,
      to: AFTER,
      dryRun: true,
    });
    expect(report.partitions.map((p) => p.offset)).toEqual(['3', '3']);
    expect(report.replayed).toBe('4');
    expect(await committed()).toEqual(['5', '5']);
  });

  it('sets every partition to its first record at or after the time', async () => {
    const report = await rewindGroup(kafka, {
      group: GROUP,
      topic: TOPIC,
      to: AFTER,
      dryRun: false,
    });
    expect(report).toMatchObject({ group: GROUP, topic: TOPIC, to: '2026-11-26T09:00:00.000Z' });
    expect(await committed()).toEqual(['3', '3']);
  });

  it('never moves a partition forward, past visits not stored yet', async () => {
    await setCommitted(['1', '5']);
    await rewindGroup(kafka, { group: GROUP, topic: TOPIC, to: AFTER, dryRun: false });
    expect(await committed()).toEqual(['1', '3']);
    // A time after every record: the end, or where the group already is if earlier.
    await rewindGroup(kafka, { group: GROUP, topic: TOPIC, to: Date.now(), dryRun: false });
    expect(await committed()).toEqual(['1', '3']);
  });
});

describe('rewoundOffset', () => {
  it('is the earlier of the committed offset and the time’s', () => {
    expect(rewoundOffset('10', '4')).toBe('4');
    expect(rewoundOffset('2', '4')).toBe('2');
    expect(rewoundOffset(null, '4')).toBe('4');
  });
});

describe('parseRewindTime', () => {
  const now = Date.parse('2026-11-26T10:00:00Z');
  it('takes an ISO 8601 time with its zone', () => {
    expect(parseRewindTime('2026-11-26T09:00Z', now)).toBe(AFTER);
    expect(parseRewindTime('2026-11-26T10:00:00+01:00', now)).toBe(AFTER);
  });
  it.each([
    [undefined, /required/],
    ['2026-11-26T09:00', /with its zone/],
    ['yesterday', /with its zone/],
    ['2026-11-26T11:00Z', /future/],
  ])('refuses %s', (value, message) => {
    expect(() => parseRewindTime(value, now)).toThrow(message);
  });
});
