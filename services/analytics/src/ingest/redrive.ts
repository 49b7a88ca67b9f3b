import { randomBytes } from 'node:crypto';
import type { IHeaders, Kafka, KafkaMessage, Message } from 'kafkajs';
import type { Logger } from 'pino';
import { aclRefusal, createProducer } from '@shortener/chassis-kafka';
import {
  DLQ_PART_HEADER,
  DLQ_REASON_HEADER,
  DLQ_SOURCE_HEADER,
  DLQ_TRUNCATED_HEADER,
} from './dead-letter.producer';

/** Which dead letters go back: all, those of a time range, those whose reason contains a text. */
export interface RedriveFilter {
  /** Dead-lettered at or after, in ms since the epoch. */
  from?: number;
  /** Dead-lettered before. */
  to?: number;
  /** A part of the reason, as the `dlq-reason` header has it (case-insensitive). */
  reason?: string;
}

interface RedriveReport {
  /** Dead letters read (those on the topic when the re-drive began). */
  read: number;
  /** Sent back to the visits topic (or, with dryRun, that would be), by reason. */
  redriven: Record<string, number>;
  /** Passed over: outside the filter, or not replayable (cut when dead-lettered). */
  skipped: { filtered: number; truncated: number };
}

/** Headers the dead-letter producer added, taken off before a letter goes back. */
const DLQ_HEADERS = new Set([
  DLQ_REASON_HEADER,
  DLQ_SOURCE_HEADER,
  DLQ_PART_HEADER,
  DLQ_TRUNCATED_HEADER,
]);
/** Set on a re-driven message: the dead letter it came from (topic/partition/offset). */
export const REDRIVEN_FROM_HEADER = 'redriven-from';

const text = (value: IHeaders[string]): string =>
  value === undefined ? '' : Array.isArray(value) ? String(value[0] ?? '') : String(value);

/** Whether a dead letter goes back under `filter`, and why not if it does not. */
export function choose(
  message: Pick<KafkaMessage, 'timestamp' | 'headers' | 'value'>,
  filter: RedriveFilter,
): 'redrive' | 'filtered' | 'truncated' {
  const at = Number(message.timestamp);
  if (filter.from !== undefined && at < filter.from) return 'filtered';
  if (filter.to !== undefined && at >= filter.to) return 'filtered';
  const reason = text(message.headers?.[DLQ_REASON_HEADER]);
  if (filter.reason !== undefined && !reason.toLowerCase().includes(filter.reason.toLowerCase())) {
    return 'filtered';
  }
  if (message.headers?.[DLQ_TRUNCATED_HEADER] !== undefined || message.value === null) {
    return 'truncated';
  }
  return 'redrive';
}

/** A dead letter as it goes back: its key, value and own headers, and where it came from. */
export function redriven(message: KafkaMessage, from: string): Message {
  const headers: IHeaders = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    if (!DLQ_HEADERS.has(name) && value !== undefined) headers[name] = value;
  }
  headers[REDRIVEN_FROM_HEADER] = from;
  return { key: message.key, value: message.value, headers };
}

/**
 * Sends the dead letters the filter keeps, up to the topic's end when called, back to the
 * visits topic; storing is exactly-once by event id, so repeating a re-drive counts nothing
 * twice. A temporary consumer group reads; the dead-letter topic keeps every letter.
 */
export async function redrive(
  kafka: Kafka,
  topics: { deadLetters: string; visits: string },
  filter: RedriveFilter,
  { dryRun, logger, timeoutMs = 120_000 }: { dryRun: boolean; logger: Logger; timeoutMs?: number },
): Promise<RedriveReport> {
  const report: RedriveReport = { read: 0, redriven: {}, skipped: { filtered: 0, truncated: 0 } };
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `analytics-redrive-${randomBytes(6).toString('hex')}`;
  const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 1 });
  const consumer = kafka.consumer({ groupId });
  try {
    // Where each partition ends now: letters written meanwhile (a re-driven one failing
    // again, say) are the next re-drive's.
    const ends = new Map(
      (await admin.fetchTopicOffsets(topics.deadLetters))
        .filter(({ high, low }) => BigInt(high) > BigInt(low))
        .map(({ partition, high }) => [partition, BigInt(high)]),
    );
    if (ends.size === 0) return report;
    if (!dryRun) await producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topics: [topics.deadLetters], fromBeginning: true });
    let timer: NodeJS.Timeout | undefined;
    const finished = new Promise<void>((resolve, reject) => {
      // A partition that never reaches its end (the broker away meanwhile) must not hold
      // the command for good.
      timer = setTimeout(
        () => reject(new Error(`the dead letters were not all read within ${timeoutMs} ms`)),
        timeoutMs,
      );
      // kafkajs restarts a consumer that crashed on a refusal wrapped in its retries, for
      // ever: a refusal by the ACLs ends the command instead.
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (!payload.restart || aclRefusal(payload.error) !== undefined) reject(payload.error);
      });
      void consumer
        .run({
          autoCommit: false,
          eachBatch: async (payload) => {
            const { batch } = payload;
            const end = ends.get(batch.partition);
            if (end === undefined) return;
            const back: Message[] = [];
            for (const message of batch.messages) {
              if (BigInt(message.offset) >= end) break;
              report.read++;
              const choice = choose(message, filter);
              if (choice === 'filtered') report.skipped.filtered++;
              else if (choice === 'truncated') report.skipped.truncated++;
              else {
                const reason = text(message.headers?.[DLQ_REASON_HEADER]) || 'unknown';
                report.redriven[reason] = (report.redriven[reason] ?? 0) + 1;
                back.push(
                  redriven(message, `${topics.deadLetters}/${batch.partition}/${message.offset}`),
                );
              }
              payload.resolveOffset(message.offset);
            }
            if (back.length > 0 && !dryRun) {
              await producer.send({ topic: topics.visits, messages: back });
            }
            const last = BigInt(batch.lastOffset());
            if (last + 1n >= end) ends.delete(batch.partition);
            if (ends.size === 0) resolve();
          },
        })
        .catch(reject);
    });
    await finished.finally(() => clearTimeout(timer));
    return report;
  } finally {
    await consumer.disconnect();
    await producer.disconnect();
    await admin.deleteGroups([groupId]).catch((error: unknown) => {
      logger.warn({ err: String(error), groupId }, 're-drive group not deleted');
    });
    await admin.disconnect();
  }
}
