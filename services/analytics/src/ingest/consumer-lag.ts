import type { Admin, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import type { Gauge } from 'prom-client';
import { periodic, type PeriodicJob } from '@shortener/chassis';

export interface PartitionLag {
  partition: number;
  /** Events on the partition that the group has not committed yet. */
  lag: number;
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
    return { partition, lag: lag > 0n ? Number(lag) : 0 };
  });
}

/**
 * Reads the consumer group's lag every `everyMs` with an admin client of its own and sets
 * `analytics_consumer_lag{topic, partition}`: alerts and autoscaling get it from analytics
 * itself, with no exporter. Every instance reports the whole group's (the same figures), so
 * queries take the max per partition. Two cheap requests per round (ListOffsets and
 * OffsetFetch); a failed round leaves the last figures and is tried again next round.
 */
export class ConsumerLagReader {
  private admin: Admin | undefined;
  private job: PeriodicJob | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: { groupId: string; topic: string; everyMs: number },
    private readonly gauge: Gauge<'topic' | 'partition'>,
    private readonly logger: Logger,
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

  async read(): Promise<PartitionLag[]> {
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
    for (const { partition, lag } of lags) {
      this.gauge.set({ topic, partition: String(partition) }, lag);
    }
    return lags;
  }

  async stop(): Promise<void> {
    await this.job?.stop();
    const admin = this.admin;
    this.admin = undefined;
    await admin?.disconnect();
  }
}
