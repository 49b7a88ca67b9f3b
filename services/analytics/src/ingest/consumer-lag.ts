import type { Admin, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import type { Gauge } from 'prom-client';
import { periodic, type PeriodicJob } from '@shortener/chassis';

interface PartitionLag {
  partition: number;
  /** Events on the partition that the group has not committed yet. */
  lag: number;
  /** The next offset the group reads (its committed one, or the earliest kept). */
  next: bigint;
  /** The high watermark: the next offset to be written. */
  high: bigint;
}

/**
 * The group's lag per partition from the topic's offsets and the group's committed ones:
 * the high watermark (the next offset to be written) less the next offset to read. A
 * partition the group never committed on is read from its earliest offset (the consumer
 * subscribes from the beginning), so all it still holds is lag.
 */
export function partitionLags(
  topic: ReadonlyArray<{ partition: number; high: string; low: string }>,
  committed: ReadonlyArray<{ partition: number; offset: string }>,
): PartitionLag[] {
  const next = new Map(committed.map(({ partition, offset }) => [partition, BigInt(offset)]));
  return topic.map(({ partition, high, low }) => {
    const read = next.get(partition) ?? -1n;
    const from = read < 0n ? BigInt(low) : read;
    const lag = BigInt(high) - from;
    return { partition, lag: lag > 0n ? Number(lag) : 0, next: from, high: BigInt(high) };
  });
}

/** Watermarks kept per partition: at one a round (15 s), some 3.5 days of rounds that grew. */
const MAX_MARKS = 20_000;

/**
 * The lag in seconds, from when each high watermark was first seen: the age of the oldest
 * visit not stored, short by at most one round (a lower bound for a backlog older than this
 * reader).
 */
export class WatermarkHistory {
  /** Per partition, ascending: each watermark seen and when it was first seen (ms). */
  private readonly marks = new Map<number, { high: bigint; at: number }[]>();

  constructor(private readonly maxMarks = MAX_MARKS) {}

  /** Records a round's watermark and answers the lag in seconds of the group's next record. */
  lagSeconds(partition: number, next: bigint, high: bigint, now: number): number {
    let marks = this.marks.get(partition);
    if (!marks) this.marks.set(partition, (marks = []));
    const last = marks[marks.length - 1];
    if (!last || high > last.high) marks.push({ high, at: now });
    // Marks the group has read past are never needed again (it only moves forward; after a
    // rewind the records are counted from the oldest mark left: a lower bound again).
    let read = 0;
    while (read < marks.length - 1 && marks[read]!.high <= next) read += 1;
    const drop = Math.max(read, marks.length - this.maxMarks);
    if (drop > 0) marks.splice(0, drop);
    if (next >= high) return 0;
    const firstPast = marks.find((mark) => mark.high > next) ?? marks[marks.length - 1]!;
    return Math.max(0, (now - firstPast.at) / 1000);
  }
}

/**
 * Sets the group's lag gauges (events and seconds) every `everyMs`, so alerts and autoscaling
 * need no exporter; every instance reports the whole group's, so queries take the max.
 */
export class ConsumerLagReader {
  private admin: Admin | undefined;
  private job: PeriodicJob | undefined;
  private readonly history = new WatermarkHistory();

  constructor(
    private readonly kafka: Kafka,
    private readonly options: { groupId: string; topic: string; everyMs: number },
    private readonly gauges: {
      lag: Gauge<'topic' | 'partition'>;
      seconds: Gauge<'topic' | 'partition'>;
    },
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.job = periodic({
      name: 'read consumer lag',
      everyMs: this.options.everyMs,
      run: () => this.read(),
      logger: this.logger,
      runAtStart: true,
    });
  }

  async read(): Promise<(PartitionLag & { seconds: number })[]> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      await admin.connect();
      this.admin = admin;
    }
    const { groupId, topic } = this.options;
    const [offsets, [group]] = await Promise.all([
      this.admin.fetchTopicOffsets(topic),
      this.admin.fetchOffsets({ groupId, topics: [topic] }),
    ]);
    const lags = partitionLags(offsets, group?.partitions ?? []);
    const now = this.now();
    return lags.map(({ partition, lag, next, high }) => {
      const labels = { topic, partition: String(partition) };
      const seconds = this.history.lagSeconds(partition, next, high, now);
      this.gauges.lag.set(labels, lag);
      this.gauges.seconds.set(labels, seconds);
      return { partition, lag, next, high, seconds };
    });
  }

  async stop(): Promise<void> {
    await this.job?.stop();
    const admin = this.admin;
    this.admin = undefined;
    await admin?.disconnect();
  }
}
