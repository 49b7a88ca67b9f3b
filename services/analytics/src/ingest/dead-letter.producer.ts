import type { IHeaders, Kafka, KafkaMessage, Message, Producer } from 'kafkajs';
import { createProducer } from '@shortener/chassis-kafka';
import { encodeVisitEvent } from '@shortener/contracts';
import type { Unstored } from './visit-batch';

/** A message that cannot be stored, kept as it came for the dead-letter topic. */
export interface RejectedMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders | undefined;
  reason: string;
}

export const DLQ_REASON_HEADER = 'dlq-reason';
export const DLQ_SOURCE_HEADER = 'dlq-source';
/** For one event of a packed record: which one, as `index/count` (from 1). */
export const DLQ_PART_HEADER = 'dlq-part';

/** Letters sent together at most this many bytes of values (one larger letter goes alone). */
const SEND_BYTES = 512 * 1024;
/** A value kept whole up to this (the topic took it, but with our headers Kafka might refuse it); beyond, its start. */
export const DLQ_MAX_VALUE_BYTES = 1_040_000;
/** Set on a letter whose value was cut: its size as it came. */
export const DLQ_TRUNCATED_HEADER = 'dlq-truncated-from';

/** A message as it came, with why and where from; a value too large to send is cut. */
export function letter(
  source: { topic: string; partition: number },
  message: RejectedMessage,
): Message & { value: Buffer | null } {
  const headers: IHeaders = {
    ...message.headers,
    [DLQ_REASON_HEADER]: message.reason,
    [DLQ_SOURCE_HEADER]: `${source.topic}/${source.partition}/${message.offset}`,
  };
  let value = message.value;
  if (value !== null && value.length > DLQ_MAX_VALUE_BYTES) {
    headers[DLQ_TRUNCATED_HEADER] = String(value.length);
    value = value.subarray(0, DLQ_MAX_VALUE_BYTES);
  }
  return { key: message.key, value, headers };
}

/** Letters in groups of at most SEND_BYTES of values, in order. */
export function bySize<T extends { value: Buffer | null }>(letters: T[]): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const item of letters) {
    const size = item.value?.length ?? 0;
    if (group.length > 0 && bytes + size > SEND_BYTES) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(item);
    bytes += size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * Sends messages that failed the schema to the dead-letter topic as they came, with why and
 * where from. Retries are bounded so the batch loop can heartbeat; a letter written twice is harmless.
 */
export class DeadLetterProducer {
  private readonly producer: Producer;
  private connecting: Promise<void> | undefined;

  constructor(
    kafka: Kafka,
    private readonly topic: string,
  ) {
    this.producer = createProducer(kafka, {
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2000 },
    });
  }

  async send(
    source: { topic: string; partition: number },
    messages: RejectedMessage[],
  ): Promise<void> {
    this.connecting ??= this.producer.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw error;
    });
    await this.connecting;
    // Kafka refuses a produce request larger than its largest message (1 MiB by default), so
    // large letters go a few at a time.
    for (const group of bySize(messages.map((message) => letter(source, message)))) {
      await this.producer.send({ topic: this.topic, acks: -1, messages: group });
    }
  }

  async close(): Promise<void> {
    if (this.connecting) await this.producer.disconnect();
  }
}

/**
 * What cannot be stored, for the dead-letter topic, with why: the message as it came or, for one
 * event of a packed record, that event alone as a one-event message (encodeVisitEvent: the JSON
 * a consumer reads as any other), with its place in the record.
 */
export function rejectedMessage({ origin, reason, part }: Unstored<KafkaMessage>): RejectedMessage {
  const message = {
    offset: origin.offset,
    key: origin.key ?? null,
    value: origin.value,
    headers: origin.headers,
    reason,
  };
  if (part === undefined) return message;
  return {
    ...message,
    value: encodeVisitEvent(part.event),
    headers: { ...origin.headers, [DLQ_PART_HEADER]: `${part.index}/${part.count}` },
  };
}
