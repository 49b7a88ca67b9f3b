// Keeping a batch alive while it is stored: heartbeats all along, and each step retried.
import { setTimeout as sleep } from 'node:timers/promises';
import type { EachBatchPayload } from 'kafkajs';
import type { Logger } from 'pino';
import { retry } from '@shortener/chassis';
import type { VisitSink } from './visit-source';

const RETRY_INITIAL_MS = 250;
const RETRY_MAX_MS = 10_000;

/**
 * A third of the session timeout (Kafka's rule, so two heartbeats can be missed), at most 3 s
 * (kafkajs's default): a batch stored slowly or retried through an outage keeps its partition.
 */
export function heartbeatInterval(sessionTimeoutMs: number): number {
  return Math.min(3000, Math.floor(sessionTimeoutMs / 3));
}

export type Step = { name: 'database' | 'dead-letter'; run: () => Promise<void> };

/** What a batch is kept alive with: the source's shutdown, its logger, its heartbeat interval. */
export interface BatchKeeping {
  stopping: AbortSignal;
  logger: Logger;
  heartbeatMs: number;
}

/**
 * Runs a step until it succeeds; false when the batch should be given up instead: on
 * shutdown, or once a heartbeat failed (`lost`: the group is rebalancing or dropped us).
 */
export async function untilDone(
  keeping: BatchKeeping,
  step: Step,
  payload: EachBatchPayload,
  sink: VisitSink,
  lost: AbortSignal,
): Promise<boolean> {
  try {
    await retry(
      async () => {
        try {
          await step.run();
        } catch (error) {
          sink.metrics.retries.inc({ step: step.name });
          throw error;
        }
      },
      {
        initialMs: RETRY_INITIAL_MS,
        maxMs: RETRY_MAX_MS,
        giveUp: () =>
          keeping.stopping.aborted || lost.aborted || !payload.isRunning() || payload.isStale(),
        onRetry: (error, { delayMs }) =>
          keeping.logger.warn(
            {
              err: error instanceof Error ? error.message : String(error),
              step: step.name,
              partition: payload.batch.partition,
              offset: payload.batch.firstOffset(),
              retryInMs: delayMs,
            },
            'batch not stored yet; retrying it',
          ),
        // Woken early on shutdown or when the group moves on, to give the batch up.
        wait: (ms) =>
          sleep(ms, undefined, { signal: AbortSignal.any([keeping.stopping, lost]) }).catch(
            () => undefined,
          ),
      },
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `work` while heartbeating every heartbeat interval (kafkajs sends one only when the
 * last is that old). `lost` aborts when a heartbeat fails: the group is rebalancing, has
 * dropped this member, or cannot be reached, and the batch should be given up after the
 * step in hand. The error itself reaches kafkajs at its own next heartbeat, which rejoins.
 */
export async function heartbeating<T>(
  keeping: BatchKeeping,
  payload: EachBatchPayload,
  work: (lost: AbortSignal) => Promise<T>,
): Promise<T> {
  const done = new AbortController();
  const lost = new AbortController();
  const beat = async (): Promise<void> => {
    while (!lost.signal.aborted) {
      await sleep(keeping.heartbeatMs, undefined, { signal: done.signal }).catch(() => undefined);
      if (done.signal.aborted) return;
      try {
        await payload.heartbeat();
      } catch (error) {
        if (done.signal.aborted) return;
        keeping.logger.warn(
          {
            err: error instanceof Error ? error.message : String(error),
            partition: payload.batch.partition,
          },
          'heartbeat failed during a batch; it is not retried any more',
        );
        lost.abort(error);
      }
    }
  };
  // Never rejects; a heartbeat still in flight at the end is not waited for.
  void beat();
  try {
    return await work(lost.signal);
  } finally {
    done.abort();
  }
}
