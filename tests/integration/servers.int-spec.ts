import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import Redis from 'ioredis';
import { testServers, waitFor } from '@shortener/testkit';

// The real servers the suite stands on answer as the services will use them.

describe('PostgreSQL', () => {
  it('answers a query', async () => {
    const client = new Client({ connectionString: testServers.databaseUrl });
    await client.connect();
    try {
      const result = await client.query<{ sum: number }>('SELECT $1::int + $2::int AS sum', [2, 3]);
      expect(result.rows[0]?.sum).toBe(5);
    } finally {
      await client.end();
    }
  });
});

describe('Redis', () => {
  it('stores a value with an expiry and reads it back', async () => {
    const redis = new Redis(testServers.redisUrl);
    const key = `test:roundtrip:${randomUUID()}`;
    try {
      await redis.set(key, 'hello', 'PX', 10_000);
      expect(await redis.get(key)).toBe('hello');
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    } finally {
      await redis.del(key);
      await redis.quit();
    }
  });
});

describe('Kafka', () => {
  const kafka = new Kafka({
    clientId: 'foundation-test',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const topic = `test.roundtrip.${randomUUID()}`;
  const admin = kafka.admin();

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  });

  afterAll(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('has the visits topics the services use', async () => {
    const topics = await admin.listTopics();
    expect(topics).toEqual(expect.arrayContaining(['visits', 'visits.dlq']));
    const [visits] = (await admin.fetchTopicMetadata({ topics: ['visits'] })).topics;
    expect(visits?.partitions.length).toBeGreaterThanOrEqual(1);
  });

  it('delivers what an idempotent producer sends to a consumer group, every message once', async () => {
    const producer = kafka.producer({ idempotent: true });
    const consumer = kafka.consumer({ groupId: `test-${randomUUID()}` });
    const sent = Array.from({ length: 200 }, (_, index) => ({
      key: `key-${index % 7}`,
      value: JSON.stringify({ index }),
    }));
    const received: number[] = [];
    await producer.connect();
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: ({ message }) => {
          received.push((JSON.parse(message.value?.toString() ?? '{}') as { index: number }).index);
          return Promise.resolve();
        },
      });
      await producer.send({ topic, acks: -1, messages: sent });
      await waitFor(() => received.length >= sent.length, { what: 'all messages consumed' });
      expect([...received].sort((a, b) => a - b)).toEqual(sent.map((_, index) => index));
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
    }
  });
});
