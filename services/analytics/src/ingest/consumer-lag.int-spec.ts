import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import pino from 'pino';
import { Gauge, Registry } from 'prom-client';
import { testServers } from '@shortener/testkit';
import { ConsumerLagReader } from './consumer-lag';

// The lag reader against the real broker: a topic of its own, a group that has read part of
// it, and the gauges the alerts and the dashboard read (events, and seconds by the reader's
// clock, which the test moves on between rounds).
const TOPIC = `lag-test-${randomUUID()}`;
const GROUP = `${TOPIC}-group`;

describe('ConsumerLagReader', () => {
  const kafka = new Kafka({
    clientId: 'consumer-lag-test',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const registry = new Registry();
  const gauge = new Gauge({
    name: 'analytics_consumer_lag',
    help: 'test',
    labelNames: ['topic', 'partition'] as const,
    registers: [registry],
  });
  const seconds = new Gauge({
    name: 'analytics_consumer_lag_seconds',
    help: 'test',
    labelNames: ['topic', 'partition'] as const,
    registers: [registry],
  });
  // The reader's clock, moved by the test: its rounds are minutes apart without waiting.
  let now = Date.parse('2026-11-28T12:00:00Z');
  const reader = new ConsumerLagReader(
    kafka,
    { groupId: GROUP, topic: TOPIC, everyMs: 60_000 },
    { lag: gauge, seconds },
    pino({ level: 'silent' }),
    () => now,
  );
  let admin: Admin;
  let producer: Producer;

  const lagOf = async (of = gauge): Promise<Record<string, number>> =>
    Object.fromEntries(
      (await of.get()).values.map(({ labels, value }) => [
        `${labels.topic === TOPIC ? '' : `${labels.topic} `}${labels.partition}`,
        value,
      ]),
    );

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: TOPIC, numPartitions: 2 }],
    });
    producer = kafka.producer();
    await producer.connect();
  }, 60_000);

  afterAll(async () => {
    await reader.stop();
    await producer?.disconnect();
    await admin?.deleteTopics({ topics: [TOPIC] }).catch(() => undefined);
    await admin?.disconnect();
  });

  it('counts every event of a partition the group never committed on, 0 for an empty one', async () => {
    await producer.send({
      topic: TOPIC,
      messages: Array.from({ length: 5 }, (_, i) => ({ value: `event ${i}`, partition: 0 })),
    });
    await reader.read();
    expect(await lagOf()).toEqual({ '0': 5, '1': 0 });
    // First seen in this round: no time behind yet.
    expect(await lagOf(seconds)).toEqual({ '0': 0, '1': 0 });
  });

  it('counts only what follows the committed offset, and falls with each commit', async () => {
    await producer.send({
      topic: TOPIC,
      messages: Array.from({ length: 3 }, (_, i) => ({ value: `event ${i}`, partition: 1 })),
    });
    // The group has read partition 0 up to offset 2 and all of partition 1.
    await admin.setOffsets({
      groupId: GROUP,
      topic: TOPIC,
      partitions: [
        { partition: 0, offset: '2' },
        { partition: 1, offset: '3' },
      ],
    });
    now += 60_000;
    await reader.read();
    expect(await lagOf()).toEqual({ '0': 3, '1': 0 });
    // Partition 0's next record (offset 2) was first seen a minute ago, in the first round.
    expect(await lagOf(seconds)).toEqual({ '0': 60, '1': 0 });

    await admin.setOffsets({
      groupId: GROUP,
      topic: TOPIC,
      partitions: [{ partition: 0, offset: '5' }],
    });
    now += 30_000;
    await reader.read();
    expect(await lagOf()).toEqual({ '0': 0, '1': 0 });
    expect(await lagOf(seconds)).toEqual({ '0': 0, '1': 0 });
  });

  it('counts the seconds from the round that first saw what the group has not read', async () => {
    await producer.send({
      topic: TOPIC,
      messages: Array.from({ length: 4 }, (_, i) => ({ value: `late ${i}`, partition: 1 })),
    });
    now += 15_000;
    await reader.read();
    expect(await lagOf()).toEqual({ '0': 0, '1': 4 });
    expect(await lagOf(seconds)).toEqual({ '0': 0, '1': 0 });
    // The group stays where it is for a minute and a half: it falls behind by as much.
    now += 90_000;
    await reader.read();
    expect(await lagOf(seconds)).toEqual({ '0': 0, '1': 90 });
    await admin.setOffsets({
      groupId: GROUP,
      topic: TOPIC,
      partitions: [{ partition: 1, offset: '7' }],
    });
    now += 15_000;
    await reader.read();
    expect(await lagOf()).toEqual({ '0': 0, '1': 0 });
    expect(await lagOf(seconds)).toEqual({ '0': 0, '1': 0 });
  });
});
