import type { IHeaders, Kafka, Producer } from 'kafkajs';
import { createProducer } from '@shortener/chassis-kafka';

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

/**
 * Sends messages that failed the event schema to the dead-letter topic as they came (key,
 * value, headers; one event of a packed record alone), plus why and where from, so they can be inspected and replayed. The
 * producer is idempotent, so its own retries never write a message twice. Its retries are
 * bounded (kafkajs warns about that once): a send that fails comes back to the batch loop,
 * which heartbeats and can stop, and tries again; after such an outage a dead letter may be
 * written twice, which is harmless for a topic that is only inspected.
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
    await this.producer.send({
      topic: this.topic,
      acks: -1,
      messages: messages.map((message) => ({
        key: message.key,
        value: message.value,
        headers: {
          ...message.headers,
          [DLQ_REASON_HEADER]: message.reason,
          [DLQ_SOURCE_HEADER]: `${source.topic}/${source.partition}/${message.offset}`,
        },
      })),
    });
  }

  async close(): Promise<void> {
    if (this.connecting) await this.producer.disconnect();
  }
}
