import { setTimeout as sleep } from 'node:timers/promises';
import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import type { Batch, Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { retryForever } from '@shortener/chassis';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { AnalyticsConfig } from '../config';
import { DeadLetterProducer } from './dead-letter.producer';
import { IngestService } from './ingest.service';
import { planBatch, rejectedMessage, type RejectedMessage } from './visit-batch';
import type { VisitSource } from './visit-source';

export const KAFKA = Symbol('KAFKA');
export const DEAD_LETTERS = Symbol('DEAD_LETTERS');

const RETRY_INITIAL_MS = 250;
const RETRY_MAX_MS = 10_000;
/** Well inside the session timeout, so a batch waiting out an outage keeps its partition. */
const HEARTBEAT_EVERY_MS = 3000;

type Step = { name: 'database' | 'dead-letter'; run: () => Promise<void> };

/** The offset to commit after a batch: Kafka stores the next offset to read. */
function nextOffset(batch: Batch): string {
  return (BigInt(batch.lastOffset()) + 1n).toString();
}

/**
 * The `visits` consumer group. Each fetched batch is planned in memory (parse, User-Agent,
 * IP), stored in one transaction (split when PostgreSQL refuses some of its events for their
 * data), its bad messages dead-lettered, and only then is its offset committed; while
 * PostgreSQL or Kafka fail, the same batch is retried, so nothing after it is committed
 * before it is stored. Partitions are processed side by side.
 */
@Injectable()
export class VisitsConsumer implements VisitSource, OnApplicationBootstrap, OnApplicationShutdown {
  readonly name = 'kafka';
  private consumer: Consumer | undefined;
  private joined = false;
  private problem = 'not connected to Kafka yet';
  private readonly stopping = new AbortController();

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    @Inject(DEAD_LETTERS) private readonly deadLetters: DeadLetterProducer,
    @Inject(IngestService) private readonly ingest: IngestService,
    @Inject(SERVICE_CONFIG) private readonly config: AnalyticsConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    // Not awaited: the service is alive (and not ready) while Kafka comes up.
    this.start();
  }

  /** Ready once the consumer has joined its group, and as long as it has not crashed. */
  check(): Promise<void> {
    return this.joined ? Promise.resolve() : Promise.reject(new Error(this.problem));
  }

  /** Stops fetching, lets the batch in hand finish or abandons it uncommitted, disconnects. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    const consumer = this.consumer;
    this.consumer = undefined;
    try {
      await consumer?.disconnect();
    } finally {
      await this.deadLetters.close();
    }
  }

  private start(): void {
    void retryForever(
      () => this.connect(),
      (error, retryInMs) => {
        this.problem = `cannot join consumer group: ${error instanceof Error ? error.message : String(error)}`;
        this.logger.warn({ err: this.problem, retryInMs }, 'Kafka consumer not started yet');
      },
      { signal: this.stopping.signal },
    ).catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.config.KAFKA_CONSUMER_GROUP,
      sessionTimeout: 30_000,
      heartbeatInterval: HEARTBEAT_EVERY_MS,
      // Bigger fetches mean fewer, larger transactions; a burst on one link arrives in
      // batches of about this size per partition.
      maxBytesPerPartition: 4 * 1024 * 1024,
      maxBytes: 16 * 1024 * 1024,
      // A fetch waits this long for data when the topic is idle; shutdown waits for it.
      maxWaitTimeInMs: 1000,
    });
    this.watch(consumer);
    this.consumer = consumer;
    try {
      await consumer.connect();
      // A new group starts at the earliest offset, so events produced before the first
      // deploy are not lost; an existing group resumes from its committed offsets.
      await consumer.subscribe({ topics: [this.config.VISITS_TOPIC], fromBeginning: true });
      this.stopping.signal.throwIfAborted();
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: this.config.INGEST_CONCURRENCY,
        eachBatch: (payload) => this.handleBatch(payload),
      });
    } catch (error) {
      if (this.consumer === consumer) this.consumer = undefined;
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
  }

  private watch(consumer: Consumer): void {
    const { GROUP_JOIN, CRASH, STOP } = consumer.events;
    consumer.on(GROUP_JOIN, ({ payload }) => {
      this.joined = true;
      this.logger.info(
        { groupId: payload.groupId, partitions: payload.memberAssignment },
        'joined consumer group',
      );
    });
    consumer.on(CRASH, ({ payload }) => {
      this.joined = false;
      this.problem = `consumer crashed: ${payload.error.message}`;
      this.logger.error(
        { err: payload.error.message, restart: payload.restart },
        'Kafka consumer crashed',
      );
      // kafkajs restarts itself after retriable errors; after any other, start afresh.
      if (!payload.restart && this.consumer === consumer && !this.stopping.signal.aborted) {
        this.consumer = undefined;
        void consumer
          .disconnect()
          .catch(() => undefined)
          .then(() => this.start());
      }
    });
    consumer.on(STOP, () => {
      this.joined = false;
      this.problem = 'consumer stopped';
    });
  }

  private async handleBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    if (batch.isEmpty()) return;
    const { metrics } = this.ingest;
    const finish = metrics.batchDuration.startTimer();
    const plan = planBatch(batch.messages, this.ingest.enrich);

    // Events PostgreSQL refused for their data, isolated by splitting the batch: dead-lettered
    // with the database's reason like those failing the schema, so the offset moves on.
    let refused: RejectedMessage[] = [];
    const steps: Step[] = [];
    if (plan.visits.length > 0) {
      steps.push({
        name: 'database',
        run: async () => {
          const rows = await this.ingest.storeIsolating(plan.visits, plan.repeated);
          refused = rows.map(({ index, reason }) => rejectedMessage(plan.origins[index]!, reason));
        },
      });
    }
    steps.push({
      name: 'dead-letter',
      run: async () => {
        const letters = [...plan.rejected, ...refused];
        if (letters.length === 0) return;
        await this.deadLetters.send(batch, letters);
        metrics.deadLettered.inc(letters.length);
        for (const message of letters) {
          this.logger.warn(
            { partition: batch.partition, offset: message.offset, reason: message.reason },
            'visit event dead-lettered',
          );
        }
      },
    });
    for (const step of steps) {
      // Abandoned (stopping, or the partition moved to another member): nothing is resolved
      // or committed, so the batch is fetched again from the last committed offset.
      if (!(await this.untilDone(step, payload))) return;
    }

    payload.resolveOffset(batch.lastOffset());
    await payload.commitOffsetsIfNecessary({
      topics: [
        {
          topic: batch.topic,
          partitions: [{ partition: batch.partition, offset: nextOffset(batch) }],
        },
      ],
    });
    finish();
  }

  /** Runs a step until it succeeds; false when the batch should be given up instead. */
  private async untilDone(step: Step, payload: EachBatchPayload): Promise<boolean> {
    const givenUp = (): boolean =>
      this.stopping.signal.aborted || !payload.isRunning() || payload.isStale();
    let delay = RETRY_INITIAL_MS;
    for (;;) {
      try {
        await step.run();
        return true;
      } catch (error) {
        this.ingest.metrics.retries.inc({ step: step.name });
        if (givenUp()) return false;
        this.logger.warn(
          {
            err: error instanceof Error ? error.message : String(error),
            step: step.name,
            partition: payload.batch.partition,
            offset: payload.batch.firstOffset(),
            retryInMs: delay,
          },
          'batch not stored yet; retrying it',
        );
        await this.wait(delay, payload);
        if (givenUp()) return false;
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    }
  }

  /** Sleeps, heartbeating so the group keeps the partition here; wakes early on shutdown. */
  private async wait(ms: number, payload: EachBatchPayload): Promise<void> {
    const until = Date.now() + ms;
    while (!this.stopping.signal.aborted && Date.now() < until) {
      await sleep(Math.min(HEARTBEAT_EVERY_MS, until - Date.now()), undefined, {
        signal: this.stopping.signal,
      }).catch(() => undefined);
      if (!this.stopping.signal.aborted) await payload.heartbeat();
    }
  }
}
