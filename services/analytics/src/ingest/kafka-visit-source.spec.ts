import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { ConsumerConfig, ConsumerRunConfig, EachBatchPayload, Kafka } from 'kafkajs';
import { createIngestMetrics } from './ingest.metrics';
import type { DeadLetterProducer } from './dead-letter.producer';
import { heartbeatInterval, KafkaVisitSource } from './kafka-visit-source';
import type { VisitSink } from './visit-source';

/** A kafkajs consumer that only records its options and hands over its eachBatch. */
function fakeKafka() {
  let options: ConsumerConfig | undefined;
  let eachBatch: ((payload: EachBatchPayload) => Promise<void>) | undefined;
  let running: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (running = resolve));
  const consumer = {
    events: { GROUP_JOIN: 'join', CRASH: 'crash', STOP: 'stop' },
    on: () => undefined,
    connect: () => Promise.resolve(),
    subscribe: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    run: (config: ConsumerRunConfig) => {
      eachBatch = config.eachBatch;
      running();
      return Promise.resolve();
    },
  };
  // The lag reader's admin client: an empty topic, nothing committed.
  const admin = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    fetchTopicOffsets: () => Promise.resolve([]),
    fetchOffsets: () => Promise.resolve([]),
  };
  const kafka = {
    consumer: (config: ConsumerConfig) => {
      options = config;
      return consumer;
    },
    admin: () => admin,
  } as unknown as Kafka;
  return {
    kafka,
    options: () => options!,
    started,
    eachBatch: (payload: EachBatchPayload) => eachBatch!(payload),
  };
}

/** One batch of two messages on partition 0, with what the consumer did with it. */
function fakePayload(heartbeat: () => Promise<void>) {
  const calls = { heartbeats: [] as number[], resolved: [] as string[], committed: 0 };
  const message = (offset: string) => ({ offset, key: null, value: Buffer.from('{}') });
  const payload = {
    batch: {
      topic: 'visits',
      partition: 0,
      messages: [message('10'), message('11')],
      isEmpty: () => false,
      firstOffset: () => '10',
      lastOffset: () => '11',
    },
    heartbeat: () => {
      calls.heartbeats.push(Date.now());
      return heartbeat();
    },
    resolveOffset: (offset: string) => void calls.resolved.push(offset),
    commitOffsetsIfNecessary: () => {
      calls.committed += 1;
      return Promise.resolve();
    },
    isRunning: () => true,
    isStale: () => false,
  } as unknown as EachBatchPayload;
  return { payload, calls };
}

async function startSource(sessionTimeoutMs: number, ingest: VisitSink['ingest']) {
  const kafka = fakeKafka();
  const logger = pino({ level: 'silent' });
  const deadLetters = {
    send: () => Promise.resolve(),
    close: () => Promise.resolve(),
  } as unknown as DeadLetterProducer;
  const source = new KafkaVisitSource(
    kafka.kafka,
    deadLetters,
    {
      KAFKA_CONSUMER_GROUP: 'analytics',
      VISITS_TOPIC: 'visits',
      INGEST_CONCURRENCY: 1,
      KAFKA_SESSION_TIMEOUT_MS: sessionTimeoutMs,
      CONSUMER_LAG_INTERVAL_MS: 60_000,
    },
    logger,
  );
  const sink: VisitSink = {
    ingest,
    metrics: createIngestMetrics({ registry: new Registry() } as never),
    logger,
  };
  source.start(sink);
  await kafka.started;
  return { source, kafka };
}

describe('KafkaVisitSource', () => {
  it('joins with the configured session timeout, heartbeating every third of it', async () => {
    const { source, kafka } = await startSource(6000, () => Promise.resolve([]));
    expect(kafka.options()).toMatchObject({ sessionTimeout: 6000, heartbeatInterval: 2000 });
    await source.stop();
  });

  it('heartbeats at most 3 s apart, and at least twice per session timeout', () => {
    expect(heartbeatInterval(6000)).toBe(2000);
    expect(heartbeatInterval(10_000)).toBe(3000);
    expect(heartbeatInterval(45_000)).toBe(3000);
    expect(heartbeatInterval(1500)).toBe(500);
  });

  it('heartbeats while a batch takes longer than the session timeout to store', async () => {
    // 1.5 s session, heartbeats every 0.5 s; the transaction takes 1.8 s.
    const { source, kafka } = await startSource(1500, async () => {
      await sleep(1800);
      return [];
    });
    const { payload, calls } = fakePayload(() => Promise.resolve());
    const began = Date.now();
    await kafka.eachBatch(payload);

    expect(calls.heartbeats.length).toBeGreaterThanOrEqual(3);
    const times = [began, ...calls.heartbeats];
    const gaps = times.slice(1).map((at, i) => at - times[i]!);
    expect(Math.max(...gaps)).toBeLessThan(1000);
    expect(calls.resolved).toEqual(['11']);
    expect(calls.committed).toBe(1);
    await source.stop();
  });

  it('gives a failing batch up, uncommitted, once a heartbeat says the group moved on', async () => {
    let attempts = 0;
    const { source, kafka } = await startSource(1500, () => {
      attempts += 1;
      return Promise.reject(new Error('connection refused'));
    });
    const { payload, calls } = fakePayload(() =>
      Promise.reject(new Error('The group is rebalancing, so a rejoin is needed')),
    );
    await kafka.eachBatch(payload);

    expect(calls.heartbeats.length).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(calls.resolved).toEqual([]);
    expect(calls.committed).toBe(0);
    await source.stop();
  });

  it('still commits a batch stored while a heartbeat failed', async () => {
    const { source, kafka } = await startSource(1500, async () => {
      await sleep(1200);
      return [];
    });
    const { payload, calls } = fakePayload(() =>
      Promise.reject(new Error('The group is rebalancing, so a rejoin is needed')),
    );
    await kafka.eachBatch(payload);

    expect(calls.heartbeats.length).toBeGreaterThanOrEqual(1);
    expect(calls.resolved).toEqual(['11']);
    expect(calls.committed).toBe(1);
    await source.stop();
  });
});
