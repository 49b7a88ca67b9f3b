import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Backoff, InternalAnswerError, InternalServiceError } from '@shortener/chassis';
import {
  decodeVisits,
  encodedVisitEnd,
  visitRecordOf,
  VISIT_HAND_OFF_MAX,
  VISIT_HAND_OFF_MAX_BYTES,
  type EncodedVisits,
  type InternalAnswer,
  type internalApi,
  type VisitEvent,
} from '@shortener/contracts';
import type { VisitHandOff } from './visit-queue';

/** One call's worth of visits, and how many of each run it carries. */
interface HandOffBatch {
  visits: VisitEvent[];
  parts: Array<[EncodedVisits, number]>;
}

/** `{"visits":[]}` around the events, and a comma between two. */
const BODY_BYTES = Buffer.byteLength('{"visits":[]}');

/**
 * The visits of runs, read and checked as the consumer reads them, in batches one call
 * carries: at most VISIT_HAND_OFF_MAX visits and VISIT_HAND_OFF_MAX_BYTES of JSON. A visit
 * that fails the schema (the consumer would dead-letter it) is left out and told of.
 */
export function* handOffBatches(
  runs: readonly EncodedVisits[],
  onUnreadable: (reason: string) => void,
): Generator<HandOffBatch, void> {
  let batch: HandOffBatch = { visits: [], parts: [] };
  let bytes = BODY_BYTES;
  for (const run of runs) {
    let at = 0;
    for (let index = 0; index < run.count; index++) {
      const end = encodedVisitEnd(run.bytes, at);
      const read = decodeVisits(visitRecordOf({ bytes: run.bytes.subarray(at, end), count: 1 }));
      at = end;
      const checked = read.ok ? read.events[0] : read;
      if (!checked?.ok) {
        onUnreadable(checked?.reason ?? 'no event');
        continue;
      }
      const size = Buffer.byteLength(JSON.stringify(checked.event)) + 1;
      if (batch.visits.length === VISIT_HAND_OFF_MAX || bytes + size > VISIT_HAND_OFF_MAX_BYTES) {
        yield batch;
        batch = { visits: [], parts: [] };
        bytes = BODY_BYTES;
      }
      batch.visits.push(checked.event);
      bytes += size;
      const last = batch.parts.at(-1);
      if (last?.[0] === run) last[1]++;
      else batch.parts.push([run, 1]);
    }
  }
  if (batch.visits.length > 0) yield batch;
}

export type HandOffAnswer = InternalAnswer<typeof internalApi.handOffVisits>;

interface AnalyticsHandOffOptions {
  /** One call of analytics' internal ingest, given how long it may take. */
  post: (visits: VisitEvent[], timeoutMs: number) => Promise<HandOffAnswer>;
  /** When to stop (Date.now()): no call starts after it, none outlasts it. */
  deadline: number;
  logger: Logger;
}

/** Calls in flight at once: analytics stores each batch in a transaction of its own. */
const CALLS = 3;

/**
 * Hands visits Kafka did not take to analytics' internal ingest (stored once by event id).
 * Outages (no answer, 5xx) are retried to the deadline, a refused body skipped, anything else
 * (a secret or release mismatch) ends the hand-off.
 */
export function analyticsHandOff({
  post,
  deadline,
  logger,
}: AnalyticsHandOffOptions): VisitHandOff {
  return async (runs, passed) => {
    let unreadable = 0;
    const batches = handOffBatches(runs, (reason) => {
      if (unreadable++ === 0)
        logger.warn({ reason }, 'a visit that fails its schema not handed off');
    });
    let refused = false;
    /** Posts one batch until it is taken or left out; false when the hand-off must end. */
    const hand = async (batch: HandOffBatch, backoff: Backoff): Promise<boolean> => {
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0 || refused) return false;
        let answer: HandOffAnswer;
        try {
          answer = await post(batch.visits, left);
        } catch (error) {
          const outage =
            error instanceof InternalServiceError ||
            (error instanceof InternalAnswerError && error.status >= 500);
          if (!outage) {
            if (!refused) {
              logger.error(
                { err: (error as Error).message },
                'visits not handed off: analytics refuses the calls',
              );
            }
            refused = true;
            return false;
          }
          const retryInMs = Math.min(backoff.next(), Math.max(0, deadline - Date.now()));
          logger.warn({ err: (error as Error).message, retryInMs }, 'visits not handed off yet');
          await sleep(retryInMs);
          continue;
        }
        if (answer.status === 200) {
          for (const [run, visits] of batch.parts) passed(run, visits);
          backoff.reset();
        } else {
          logger.error(
            { status: answer.status, message: answer.body.message, visits: batch.visits.length },
            'visits not handed off: analytics refused the batch',
          );
        }
        return true;
      }
    };
    const caller = async (): Promise<void> => {
      const backoff = new Backoff({ initialMs: 100, maxMs: 1000 });
      // One generator for all: each caller takes the next batch when it is free.
      for (let next = batches.next(); !next.done; next = batches.next()) {
        if (!(await hand(next.value, backoff))) return;
      }
    };
    await Promise.all(Array.from({ length: CALLS }, caller));
  };
}
