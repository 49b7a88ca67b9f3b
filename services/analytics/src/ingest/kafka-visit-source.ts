// The visits consumer group: each batch prepared, stored, dead-lettered and committed in order.
import type { Logger } from 'pino';
import type { Batch, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { retryForever, type Adapter } from '@shortener/chassis';
import { createKafka } from '@shortener/chassis-kafka';
import type { AnalyticsConfig } from '../config';
import { readVisitTraces, VISIT_TRACES_HEADER, VISIT_UTM_HEADER } from '@shortener/contracts';
import { inLinkedSpan } from '@shortener/telemetry';
import { ConsumerLagReader } from './consumer-lag';
import {
  heartbeatInterval,
  heartbeating,
  untilDone,
  type BatchKeeping,
  type Step,
} from './batch-keeping';
import { DeadLetterProducer, rejectedMessage, type RejectedMessage } from './dead-letter.producer';
import type { PreparedBatch } from './visit-batch';
import type { VisitSink, VisitSource } from './visit-source';

type KafkaSourceConfig = Pick<
  AnalyticsConfig,
  | 'KAFKA_CONSUMER_GROUP'
  | 'VISITS_TOPIC'
  | 'INGEST_CONCURRENCY'
  | 'KAFKA_SESSION_TIMEOUT_MS'
  | 'CONSUMER_LAG_INTERVAL_MS'
>;

/** The offset to commit after a batch: Kafka stores the next offset to read. */
function nextOffset(batch: Batch): string {
  return (BigInt(batch.lastOffset()) + 1n).toString();
}

/**
 * The trace contexts a batch's records carry (their trace headers): records without one, or
 * with a header that cannot be read, add none, and are stored all the same.
 */
function batchTraces(batch: Pick<Batch, 'messages'>) {
  return batch.messages.flatMap((message) =>
    readVisitTraces(message.headers?.[VISIT_TRACES_HEADER]),
  );
}

/**
 * The `visits` consumer group: Kafka's side of ingest only. Each fetched batch goes to the
 * sink (which stores it in one transaction, split when PostgreSQL refuses some of its events
 * for their data), what it could not store is dead-lettered, and only then is the offset
 * committed; while PostgreSQL or Kafka fail, the same batch is retried, so nothing after it
 * is committed before it is stored. Partitions are processed side by side.
 *
 * Within a partition, a batch is prepared (parsed, enriched, its rows made) while the batch
 * before it is still being stored: kafkajs hands a partition's next batch over only once the
 * last one is resolved, so a batch is resolved as soon as its store has begun, and its offset
 * committed once it is stored, in order. A batch given up uncommitted (shutdown, the group
 * moving on) gives up the one after it too, and the partition is sought back to it.
 */
export class KafkaVisitSource implements VisitSource {
  private consumer: Consumer | undefined;
  private joined = false;
  private problem = 'not connected to Kafka yet';
  private readonly stopping = new AbortController();
  private sink: VisitSink | undefined;
  private lag: ConsumerLagReader | undefined;
  private readonly heartbeatMs: number;
  private readonly keeping: BatchKeeping;
  /**
   * Per partition (`topic:partition`), the batch being stored: true once stored and
   * committed, false when it was given up (see handleBatch).
   */
  private readonly storing = new Map<string, Promise<boolean>>();

  constructor(
    private readonly kafka: Kafka,
    private readonly deadLetters: DeadLetterProducer,
    private readonly config: KafkaSourceConfig,
    private readonly logger: Logger,
  ) {
    this.heartbeatMs = heartbeatInterval(config.KAFKA_SESSION_TIMEOUT_MS);
    this.keeping = { stopping: this.stopping.signal, logger, heartbeatMs: this.heartbeatMs };
  }

  /** Joins the group in the background: the service is alive (and not ready) meanwhile. */
  start(sink: VisitSink): void {
    this.sink = sink;
    this.connectInBackground();
    this.lag = new ConsumerLagReader(
      this.kafka,
      {
        groupId: this.config.KAFKA_CONSUMER_GROUP,
        topic: this.config.VISITS_TOPIC,
        everyMs: this.config.CONSUMER_LAG_INTERVAL_MS,
      },
      { lag: sink.metrics.consumerLag, seconds: sink.metrics.consumerLagSeconds },
      this.logger,
    );
    this.lag.start();
  }

  /** Ready once the consumer has joined its group, and as long as it has not crashed. */
  check(): Promise<void> {
    return this.joined ? Promise.resolve() : Promise.reject(new Error(this.problem));
  }

  /** Stops fetching, lets the batch in hand finish or abandons it uncommitted, disconnects. */
  async stop(): Promise<void> {
    this.stopping.abort();
    const consumer = this.consumer;
    this.consumer = undefined;
    try {
      // The batches being stored finish (or give up) and are committed before the consumer
      // leaves; the batch in kafkajs's hands sees `stopping` and starts no store.
      await Promise.all(this.storing.values());
      await Promise.all([consumer?.disconnect(), this.lag?.stop()]);
    } finally {
      await this.deadLetters.close();
    }
  }

  private connectInBackground(): void {
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
      // A member killed without leaving (SIGKILL, OOM, a lost node) holds its partitions
      // until this runs out: the group rebalances, and ingest resumes, only then.
      sessionTimeout: this.config.KAFKA_SESSION_TIMEOUT_MS,
      heartbeatInterval: this.heartbeatMs,
      // Bigger fetches mean fewer, larger transactions; a burst on one link arrives in
      // batches of about this size per partition.
      maxBytesPerPartition: 4 * 1024 * 1024,
      maxBytes: 16 * 1024 * 1024,
      // A fetch answers once this much has gathered or the wait is over: under steady
      // traffic a batch is a quarter second of visits (one transaction, one offset commit)
      // rather than whatever arrived since the last one. An idle topic's fetch waits this
      // long; so does shutdown, and a visit's way to the visitors API.
      minBytes: 256 * 1024,
      maxWaitTimeInMs: 250,
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
          .then(() => this.connectInBackground());
      }
    });
    consumer.on(STOP, () => {
      this.joined = false;
      this.problem = 'consumer stopped';
    });
  }

  private async handleBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const sink = this.sink;
    if (batch.isEmpty() || !sink) return;
    const finish = sink.metrics.batchDuration.startTimer();
    const partition = `${batch.topic}:${batch.partition}`;
    const before = this.storing.get(partition);

    // Prepared while the partition's batch before is being stored (an outage of the day keys
    // is retried as the store's is).
    let plan: PreparedBatch<KafkaMessage> | undefined;
    const prepare: Step = {
      name: 'database',
      run: async () => {
        plan = await sink.prepare(
          batch.messages.map((message) => ({
            value: message.value,
            origin: message,
            utm: message.headers?.[VISIT_UTM_HEADER],
          })),
        );
      },
    };
    const prepared = await heartbeating(this.keeping, payload, (lost) =>
      untilDone(this.keeping, prepare, payload, sink, lost),
    );
    // Nothing is stored before the batch before is stored and committed; given up, it takes
    // this one with it (the partition was sought back to it).
    if (before !== undefined && !(await before)) return;
    if (!prepared || plan === undefined || this.stopping.signal.aborted) return;

    const stored = this.store(payload, sink, plan).then((done) => {
      if (done) finish();
      if (this.storing.get(partition) === stored) this.storing.delete(partition);
      return done;
    });
    this.storing.set(partition, stored);
    // kafkajs fetches the next batch once this one is resolved; it is committed once stored.
    payload.resolveOffset(batch.lastOffset());
  }

  /**
   * Stores a prepared batch, dead-letters what cannot be stored, then commits its offset:
   * true once committed. False when it was given up, or stored but not committed (the
   * group moved on): the partition is then sought back to the batch, so neither it nor
   * anything after it is skipped (events already stored are skipped by id when it comes again).
   */
  private async store(
    payload: EachBatchPayload,
    sink: VisitSink,
    plan: PreparedBatch<KafkaMessage>,
  ): Promise<boolean> {
    const { batch } = payload;
    // What cannot be stored for its data (the schema, or PostgreSQL refusing it) is
    // dead-lettered with the reason, so the offset moves on.
    let letters: RejectedMessage[] = [];
    const steps: Step[] = [
      {
        name: 'database',
        run: async () => {
          // Traced, the store links to the redirect requests whose visits it stores (a batch
          // holds many: links, not a parent), as the records' trace headers name them.
          const unstored = await inLinkedSpan(
            'visits store',
            () => batchTraces(batch),
            {
              'messaging.destination.name': batch.topic,
              'messaging.destination.partition.id': String(batch.partition),
              'messaging.batch.message_count': batch.messages.length,
            },
            () => sink.storePlan(plan),
          );
          letters = unstored.map(rejectedMessage);
        },
      },
      {
        name: 'dead-letter',
        run: async () => {
          if (letters.length === 0) return;
          await this.deadLetters.send(batch, letters);
          sink.metrics.deadLettered.inc(letters.length);
          for (const message of letters) {
            this.logger.warn(
              { partition: batch.partition, offset: message.offset, reason: message.reason },
              'visit event dead-lettered',
            );
          }
        },
      },
    ];
    try {
      // kafkajs heartbeats only between batches: heartbeating all along, so the group keeps
      // the partition here however long the batch takes, in a transaction or in retries.
      const stored = await heartbeating(this.keeping, payload, async (lost) => {
        for (const step of steps) {
          // Abandoned (stopping, or the partition moved to another member): nothing is
          // committed, and the batch is fetched again.
          if (!(await untilDone(this.keeping, step, payload, sink, lost))) return false;
        }
        return true;
      });
      if (stored) {
        await payload.commitOffsetsIfNecessary({
          topics: [
            {
              topic: batch.topic,
              partitions: [{ partition: batch.partition, offset: nextOffset(batch) }],
            },
          ],
        });
        return true;
      }
    } catch (error) {
      this.logger.warn(
        {
          err: error instanceof Error ? error.message : String(error),
          partition: batch.partition,
          offset: batch.firstOffset(),
        },
        'batch stored but its offset not committed; it will be read again',
      );
    }
    this.rewind(payload);
    return false;
  }

  /**
   * Seeks the batch's partition back to the batch (already resolved, so kafkajs would fetch
   * past it), unless stopping or another seek is pending. After a rebalance the partition
   * starts from its committed offset anyway, and the seek is then ignored or refused.
   */
  private rewind(payload: EachBatchPayload): void {
    const { batch } = payload;
    const offset = batch.firstOffset();
    if (offset === null || this.stopping.signal.aborted || payload.isStale()) return;
    try {
      this.consumer?.seek({ topic: batch.topic, partition: batch.partition, offset });
    } catch {
      // Not running any more: it restarts from the committed offset.
    }
  }
}

/**
 * The distributed mode's source: the `visits` topic, read by this service's consumer group,
 * with a producer for the dead-letter topic. Ready once the consumer has joined its group.
 */
export function kafkaVisitSource(config: AnalyticsConfig, logger: Logger): Adapter<VisitSource> {
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'analytics',
    logger,
    security: config,
  });
  const source = new KafkaVisitSource(
    kafka,
    new DeadLetterProducer(kafka, config.VISITS_DLQ_TOPIC),
    config,
    logger,
  );
  return { value: source, checks: [{ name: 'kafka', check: () => source.check() }] };
}
