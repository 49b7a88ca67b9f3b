/**
 * Counts requests per key in fixed windows. A port: Redis when the gateway runs as its own
 * process (every replica shares the counts), memory when everything runs in one process.
 */
export interface RateLimiter {
  /** Counts one request against `key`; says whether it is within `limit` per window. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests left in this window. */
  remaining: number;
  /** Until the window ends, in milliseconds. */
  resetInMs: number;
}

export const RATE_LIMITER = Symbol('RATE_LIMITER');

export function decide(count: number, limit: number, resetInMs: number): RateLimitDecision {
  return { allowed: count <= limit, remaining: Math.max(0, limit - count), resetInMs };
}
