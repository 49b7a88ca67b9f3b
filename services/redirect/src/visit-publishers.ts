import { Partitioners, type Message, type PartitionMetadata, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import {
  VISITS_TOPIC,
  VisitRecordBuilder,
  visitEventSchema,
  type VisitEvent,
} from '@shortener/contracts';
import { inSlices } from './slices';
import type { VisitPublisher } from './visit-queue';

/**
 * Checks each event against the shared schema before it leaves, whatever the publisher: a
 * bad one is logged, counted and skipped, never sent, never blocking the rest.
 */
export function checkedPublisher(
  publisher: VisitPublisher,
  logger: Logger,
  onInvalid: () => void,
): VisitPublisher {
  return {
    async publish(events: VisitEvent[]): Promise<void> {
      const valid: VisitEvent[] = [];
      await inSlices(events, (event) => {
        const result = visitEventSchema.safeParse(event);
        if (result.success) {
          valid.push(result.data);
        } else {
          onInvalid();
          logger.error({ issues: result.error.issues }, 'visit event failed its schema');
        }
      });
      if (valid.length > 0) await publisher.publish(valid);
    },
  };
}

/** Codes whose partition is remembered at once (about 100 bytes each). */
const PARTITION_MEMO_MAX = 100_000;

/**
 * The partition of a link's visits, as kafkajs's default partitioner puts a message keyed by
 * the link's code (murmur2, as the Java client): the same partition the one-event messages of
 * earlier versions went to, so a link's visits stay on one partition across an upgrade.
 */
export function partitionFor(partitions: number, topic = VISITS_TOPIC): (urlID: string) => number {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: partitions }, (_, id) => ({
    partitionId: id,
    leader: 0,
    replicas: [0],
    isr: [0],
    offlineReplicas: [],
    partitionErrorCode: 0,
  }));
  return (urlID) => partitioner({ topic, partitionMetadata, message: { key: urlID, value: null } });
}

/** A packed record kept under this: small enough to encode in one slice of about a millisecond. */
export const RECORD_BYTES = 128 * 1024;

/**
 * Publishes visits to the `visits` topic with an idempotent producer (acks from all in-sync
 * replicas), packed: the visits of each partition go in records of the format in
 * @shortener/contracts (visit-record), so the client's cost per message is paid per record.
 * A link's visits go to the partition its code is keyed to, so they stay in order on one
 * partition. `partitions` says how many the topic has, once known.
 */
export class KafkaVisitPublisher implements VisitPublisher {
  private partitionOf: ((urlID: string) => number) | undefined;
  private readonly buffers = new Map<number, Buffer>();
  private known = 0;

  private readonly topic: string;
  private readonly recordBytes: number;

  constructor(
    private readonly producer: Producer,
    private readonly partitions: () => number | undefined,
    options: { topic?: string; recordBytes?: number } = {},
  ) {
    this.topic = options.topic ?? VISITS_TOPIC;
    this.recordBytes = options.recordBytes ?? RECORD_BYTES;
  }

  async publish(events: VisitEvent[]): Promise<void> {
    const partitionOf = this.partitioner();
    const open = new Map<number, VisitRecordBuilder>();
    const messages: Message[] = [];
    await inSlices(events, (event) => {
      const partition = partitionOf(event.urlID);
      let record = open.get(partition);
      if (record === undefined || !record.add(event)) {
        if (record !== undefined) messages.push({ partition, value: record.finish() });
        record = new VisitRecordBuilder(this.scratch(partition));
        open.set(partition, record);
        record.add(event);
      }
    });
    for (const [partition, record] of open) messages.push({ partition, value: record.finish() });
    await this.producer.send({ topic: this.topic, acks: -1, messages });
  }

  /**
   * Where a partition's records are built, kept from one publish to the next (publishes never
   * overlap: the queue waits for each): the garbage a publish leaves is its records' bytes.
   */
  private scratch(partition: number): Buffer {
    let buffer = this.buffers.get(partition);
    if (buffer === undefined) {
      buffer = Buffer.allocUnsafe(this.recordBytes);
      this.buffers.set(partition, buffer);
    }
    return buffer;
  }

  private partitioner(): (urlID: string) => number {
    const partitions = this.partitions();
    if (partitions === undefined || partitions < 1)
      throw new Error(`the partitions of ${this.topic} are not known yet`);
    if (this.partitionOf === undefined || partitions !== this.known) {
      this.partitionOf = partitionFor(partitions, this.topic);
      this.known = partitions;
    }
    return this.partitionOf;
  }
}
