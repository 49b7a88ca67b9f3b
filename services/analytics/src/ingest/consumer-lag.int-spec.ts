import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import pino from 'pino';
import { Gauge, Registry } from 'prom-client';
import { testServers } from '@shortener/testkit';
import { ConsumerLagReader } from './consumer-lag';

// The lag reader against the real broker: a topic of its own, a group that has read part of
// it, and the gauge the alerts and the dashboard read.
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
  const reader = new ConsumerLagReader(
    kafka,
    { groupId: GROUP, topic: TOPIC, everyMs: 60_000 },
    gauge,
    pino({ level: 'silent' }),
  );
  let admin: Admin;
  let producer: Producer;

  const lagOf = async (): Promise<Record<string, number>> =>
    Object.fromEntries(
      (await gauge.get()).values.map(({ labels, value }) => [
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
    await reader.read();
    expect(await lagOf()).toEqual({ '0': 3, '1': 0 });

    await admin.setOffsets({
      groupId: GROUP,
      topic: TOPIC,
      partitions: [{ partition: 0, offset: '5' }],
    });
    await reader.read();
    expect(await lagOf()).toEqual({ '0': 0, '1': 0 });
  });
});
