/**
 * Counts requests per key in fixed windows. A port: Redis when the gateway runs as its own
 * process (every replica shares the counts), memory when everything runs in one process.
 */
export interface RateLimiter {
  /**
   * Counts one request against `key` (or `cost` of them: the links of a bulk call); says
   * whether it is within `limit` per window.
   */
  hit(key: string, limit: number, windowMs: number, cost?: number): Promise<RateLimitDecision>;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests left in this window. */
  remaining: number;
  /** Until the window ends, in milliseconds. */
  resetInMs: number;
  /** How many of the `cost` counted were within the limit. */
  granted: number;
}

export const RATE_LIMITER = Symbol('RATE_LIMITER');

export function decide(
  count: number,
  limit: number,
  resetInMs: number,
  cost = 1,
): RateLimitDecision {
  return {
    allowed: count <= limit,
    remaining: Math.max(0, limit - count),
    resetInMs,
    granted: Math.min(cost, Math.max(0, limit - (count - cost))),
  };
}
