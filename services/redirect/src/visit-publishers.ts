import { setImmediate as yieldToEvents } from 'node:timers/promises';
import type { Message, PartitionMetadata, Producer } from 'kafkajs';
import { defaultPartitioner } from '@shortener/chassis-kafka';
import {
  encodedVisitEnd,
  encodedVisitUrlID,
  encodeVisitTraces,
  VISIT_TRACES_HEADER,
  VISIT_TRACES_MAX,
  VISIT_UTM_HEADER,
  VISITS_TOPIC,
  VisitRecordBuilder,
  type EncodedVisits,
  type VisitTrace,
} from '@shortener/contracts';
import type { VisitPublisher } from './visit-queue';

/** How long packing may hold the event loop before it lets requests in. */
const SLICE_MS = 1;

/** Codes whose partition is remembered at once (about 100 bytes each). */
const PARTITION_MEMO_MAX = 100_000;

/**
 * The partition of a link's visits, as kafkajs's default partitioner puts a message keyed by
 * the link's code (murmur2, as the Java client): the same partition the one-event messages of
 * earlier versions went to, so a link's visits stay on one partition across an upgrade.
 */
function partitionFor(partitions: number, topic = VISITS_TOPIC): (urlID: string) => number {
  const partitioner = defaultPartitioner();
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: partitions }, (_, id) => ({
    partitionId: id,
    leader: 0,
    replicas: [0],
    isr: [0],
    offlineReplicas: [],
    partitionErrorCode: 0,
  }));
  // Hot links come back all the time: each code is hashed once while remembered.
  const known = new Map<string, number>();
  return (urlID) => {
    let partition = known.get(urlID);
    if (partition === undefined) {
      partition = partitioner({ topic, partitionMetadata, message: { key: urlID, value: null } });
      if (known.size >= PARTITION_MEMO_MAX) known.clear();
      known.set(urlID, partition);
    }
    return partition;
  };
}

/** A packed record kept under this: small enough to encode in one slice of about a millisecond. */
const RECORD_BYTES = 128 * 1024;

/**
 * Publishes visits idempotently, packed in a record per partition (kafkajs's cost is per
 * message), each link's on the partition its code is keyed to; traced visits' contexts ride
 * in the record's trace header.
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

  async publish(batch: readonly EncodedVisits[]): Promise<void> {
    const partitionOf = this.partitioner();
    const open = new Map<number, VisitRecordBuilder>();
    /** The trace contexts of each open record's visits (tracing on, and some traced). */
    const openTraces = new Map<number, VisitTrace[]>();
    const messages: Message[] = [];
    const finish = (partition: number, record: VisitRecordBuilder): void => {
      const traces = openTraces.get(partition);
      openTraces.delete(partition);
      const utm = record.utmHeader;
      const message: Message = { partition, value: record.finish() };
      if (traces !== undefined || utm !== undefined) {
        message.headers = {};
        if (traces !== undefined) message.headers[VISIT_TRACES_HEADER] = encodeVisitTraces(traces);
        if (utm !== undefined) message.headers[VISIT_UTM_HEADER] = utm;
      }
      messages.push(message);
    };
    // Each visit's bytes go, as they are, into a record of its link's partition (its campaign
    // fields, if any, into the record's utm header: the release before reads only the value).
    let sliceEnd = performance.now() + SLICE_MS;
    for (const { bytes, count, traces } of batch) {
      let at = 0;
      for (let index = 0; index < count; index++) {
        const end = encodedVisitEnd(bytes, at);
        const partition = partitionOf(encodedVisitUrlID(bytes, at));
        let record = open.get(partition);
        if (record === undefined || !record.addPlain(bytes, at)) {
          if (record !== undefined) finish(partition, record);
          record = new VisitRecordBuilder(this.scratch(partition));
          open.set(partition, record);
          record.addPlain(bytes, at);
        }
        const trace = traces?.[index];
        if (trace !== undefined) {
          let recordTraces = openTraces.get(partition);
          if (recordTraces === undefined) openTraces.set(partition, (recordTraces = []));
          if (recordTraces.length < VISIT_TRACES_MAX) recordTraces.push(trace);
        }
        at = end;
        // Off the request path, in slices: requests are never held up for long.
        if (index % 64 === 63 && performance.now() > sliceEnd) {
          await yieldToEvents();
          sliceEnd = performance.now() + SLICE_MS;
        }
      }
    }
    for (const [partition, record] of open) finish(partition, record);
    if (messages.length > 0) await this.producer.send({ topic: this.topic, acks: -1, messages });
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
