import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { ConsumerConfig, ConsumerRunConfig, EachBatchPayload, Kafka } from 'kafkajs';
import { createIngestMetrics } from './ingest.metrics';
import type { DeadLetterProducer } from './dead-letter.producer';
import { heartbeatInterval } from './batch-keeping';
import { KafkaVisitSource } from './kafka-visit-source';
import type { VisitSink } from './visit-source';

/** A kafkajs consumer that only records its options and hands over its eachBatch. */
function fakeKafka() {
  let options: ConsumerConfig | undefined;
  let eachBatch: ((payload: EachBatchPayload) => Promise<void>) | undefined;
  let running: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (running = resolve));
  const seeks: { topic: string; partition: number; offset: string }[] = [];
  const consumer = {
    seek: (seek: { topic: string; partition: number; offset: string }) => void seeks.push(seek),
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
    seeks,
    eachBatch: (payload: EachBatchPayload) => eachBatch!(payload),
  };
}

type Calls = {
  heartbeats: number[];
  resolved: string[];
  committed: number;
  commits: string[];
  /** Where a test logs its sink's steps: commits are logged there too. */
  log?: string[];
};

/**
 * One batch of two messages on partition 0 (offsets `first` and the one after), with what the
 * consumer did with it (into `calls`, which several batches may share).
 */
function fakePayload(
  heartbeat: () => Promise<void>,
  first = 10,
  calls: Calls = { heartbeats: [], resolved: [], committed: 0, commits: [] },
) {
  const message = (offset: string) => ({ offset, key: null, value: Buffer.from('{}') });
  const payload = {
    batch: {
      topic: 'visits',
      partition: 0,
      messages: [message(String(first)), message(String(first + 1))],
      isEmpty: () => false,
      firstOffset: () => String(first),
      lastOffset: () => String(first + 1),
    },
    heartbeat: () => {
      calls.heartbeats.push(Date.now());
      return heartbeat();
    },
    resolveOffset: (offset: string) => void calls.resolved.push(offset),
    commitOffsetsIfNecessary: (offsets: { topics: { partitions: { offset: string }[] }[] }) => {
      calls.committed += 1;
      calls.commits.push(offsets.topics[0]!.partitions[0]!.offset);
      calls.log?.push(`commit ${offsets.topics[0]!.partitions[0]!.offset}`);
      return Promise.resolve();
    },
    isRunning: () => true,
    isStale: () => false,
  } as unknown as EachBatchPayload;
  return { payload, calls };
}

type Incoming = { value: Buffer | null; origin: { offset: string } }[];

/**
 * A source on the fake consumer, whose sink stores with `ingest` what `prepare` was given
 * (each hook gets the batch's messages).
 */
async function startSource(
  sessionTimeoutMs: number,
  ingest: (incoming: Incoming) => Promise<unknown[]>,
  prepare: (incoming: Incoming) => Promise<void> = () => Promise.resolve(),
) {
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
    ingest: (incoming) => ingest(incoming as never) as never,
    prepare: async (incoming) => {
      await prepare(incoming as never);
      return incoming as never;
    },
    storePlan: (plan) => ingest(plan as never) as never,
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
    // Resolved once its store began, so kafkajs may fetch on; committed once stored (stop
    // waits for that).
    expect(calls.resolved).toEqual(['11']);
    await source.stop();

    expect(calls.heartbeats.length).toBeGreaterThanOrEqual(3);
    const times = [began, ...calls.heartbeats];
    const gaps = times.slice(1).map((at, i) => at - times[i]!);
    expect(Math.max(...gaps)).toBeLessThan(1000);
    expect(calls.committed).toBe(1);
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
    // Given up, the partition is sought back to it: resolved already, it would be skipped.
    await waitUntil(() => kafka.seeks.length > 0);

    expect(calls.heartbeats.length).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(calls.committed).toBe(0);
    expect(kafka.seeks).toEqual([{ topic: 'visits', partition: 0, offset: '10' }]);
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
    await source.stop();

    expect(calls.heartbeats.length).toBeGreaterThanOrEqual(1);
    expect(calls.resolved).toEqual(['11']);
    expect(calls.committed).toBe(1);
    expect(kafka.seeks).toEqual([]);
  });

  it('prepares a batch while the one before is stored, and stores and commits them in order', async () => {
    const log: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { source, kafka } = await startSource(
      6000,
      async (incoming) => {
        const first = incoming[0]!.origin.offset;
        log.push(`store ${first}`);
        if (first === '10') await held;
        log.push(`stored ${first}`);
        return [];
      },
      (incoming) => {
        log.push(`prepare ${incoming[0]!.origin.offset}`);
        return Promise.resolve();
      },
    );
    const calls: Calls = { heartbeats: [], resolved: [], committed: 0, commits: [], log };
    const heartbeat = () => Promise.resolve();

    // The first batch is resolved as its store begins, so kafkajs hands the next one over.
    await kafka.eachBatch(fakePayload(heartbeat, 10, calls).payload);
    expect(calls.resolved).toEqual(['11']);
    const second = kafka.eachBatch(fakePayload(heartbeat, 12, calls).payload);
    await waitUntil(() => log.includes('prepare 12'));
    await sleep(50);
    // Prepared while the first is stored; not stored before the first is committed.
    expect(log).toEqual(['prepare 10', 'store 10', 'prepare 12']);
    expect(calls.commits).toEqual([]);

    release();
    await second;
    await source.stop();
    expect(log).toEqual([
      'prepare 10',
      'store 10',
      'prepare 12',
      'stored 10',
      'commit 12',
      'store 12',
      'stored 12',
      'commit 14',
    ]);
    expect(calls.resolved).toEqual(['11', '13']);
  });

  it('gives up the batch after one given up, uncommitted, and seeks back to the first', async () => {
    const stores: string[] = [];
    const { source, kafka } = await startSource(1500, (incoming) => {
      stores.push(incoming[0]!.origin.offset);
      return Promise.reject(new Error('connection refused'));
    });
    const calls: Calls = { heartbeats: [], resolved: [], committed: 0, commits: [] };
    const rebalancing = () =>
      Promise.reject(new Error('The group is rebalancing, so a rejoin is needed'));

    await kafka.eachBatch(fakePayload(rebalancing, 10, calls).payload);
    await kafka.eachBatch(fakePayload(rebalancing, 12, calls).payload);

    expect(new Set(stores)).toEqual(new Set(['10']));
    expect(calls.committed).toBe(0);
    // The second was never resolved; the first is fetched again, and the second after it.
    expect(calls.resolved).toEqual(['11']);
    expect(kafka.seeks).toEqual([{ topic: 'visits', partition: 0, offset: '10' }]);
    await source.stop();
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}
