import { setTimeout as sleep } from 'node:timers/promises';

export interface BackoffOptions {
  /** The first wait is between half of this and all of it. */
  initialMs?: number;
  /** The step doubles after each wait, up to this. */
  maxMs?: number;
}

/**
 * Capped exponential back-off with jitter: each wait is drawn between half the current step
 * and the whole of it (so that many callers failing together do not retry together), and
 * the step doubles up to `maxMs`. For loops that retry in their own way (the redirect's
 * visit queue re-queues a batch and takes a new one); `retry` is built on it.
 */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private step: number;

  constructor({ initialMs = 250, maxMs = 5000 }: BackoffOptions = {}) {
    this.initialMs = initialMs;
    this.maxMs = Math.max(maxMs, initialMs);
    this.step = initialMs;
  }

  /** The wait before the next attempt. */
  next(): number {
    const wait = Math.round(this.step / 2 + Math.random() * (this.step / 2));
    this.step = Math.min(this.step * 2, this.maxMs);
    return wait;
  }

  /** After a success: the next failure waits the shortest again. */
  reset(): void {
    this.step = this.initialMs;
  }
}

export interface RetryOptions extends BackoffOptions {
  /** Aborting stops the retries (and the wait in progress) with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Asked after each failure and again after the wait that follows: true stops retrying
   * and the last error is thrown. Without it, only the signal stops the retries.
   */
  giveUp?: (error: unknown, attempt: number) => boolean;
  /** Told of each failure that will be retried, and how long before the next attempt. */
  onRetry?: (error: unknown, info: { attempt: number; delayMs: number }) => void;
  /** How to wait (default: a timer the signal cuts short), e.g. to heartbeat meanwhile. */
  wait?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

const timer = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  sleep(ms, undefined, { signal });

/**
 * Runs `attempt` (given its number, from 1) until it succeeds, with capped exponential
 * back-off and jitter between attempts, until `giveUp` says so or the signal aborts.
 */
export async function retry<T>(
  attempt: (attempt: number) => Promise<T>,
  { signal, giveUp, onRetry, wait = timer, ...backoffOptions }: RetryOptions = {},
): Promise<T> {
  const backoff = new Backoff(backoffOptions);
  for (let n = 1; ; n += 1) {
    signal?.throwIfAborted();
    try {
      return await attempt(n);
    } catch (error) {
      if (giveUp?.(error, n)) throw error;
      const delayMs = backoff.next();
      onRetry?.(error, { attempt: n, delayMs });
      try {
        await wait(delayMs, signal);
      } catch (waitError) {
        signal?.throwIfAborted(); // the signal's reason, not the timer's AbortError
        throw waitError;
      }
      signal?.throwIfAborted();
      if (giveUp?.(error, n)) throw error;
    }
  }
}

/**
 * Keeps trying `attempt` until it succeeds or the signal aborts: for dependencies that may
 * come up after the service does.
 */
export function retryForever<T>(
  attempt: () => Promise<T>,
  onError: (error: unknown, delayMs: number) => void,
  options: BackoffOptions & { signal?: AbortSignal } = {},
): Promise<T> {
  return retry(attempt, { ...options, onRetry: (error, { delayMs }) => onError(error, delayMs) });
}
