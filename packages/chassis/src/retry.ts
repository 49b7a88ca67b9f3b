import { setTimeout as sleep } from 'node:timers/promises';

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  signal?: AbortSignal;
}

/**
 * Keeps trying `attempt` with exponential back-off and jitter until it succeeds or the
 * signal aborts. Used for dependencies that may come up after the service does.
 */
export async function retryForever<T>(
  attempt: () => Promise<T>,
  onError: (error: unknown, delayMs: number) => void,
  { initialMs = 250, maxMs = 5000, signal }: BackoffOptions = {},
): Promise<T> {
  let delay = initialMs;
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await attempt();
    } catch (error) {
      const wait = Math.round(delay / 2 + Math.random() * (delay / 2));
      onError(error, wait);
      await sleep(wait, undefined, { signal });
      delay = Math.min(delay * 2, maxMs);
    }
  }
}
