import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** One limit: `points` per window of `duration` seconds, its keys under `keyPrefix`. */
export interface RateLimit {
  keyPrefix: string;
  points: number;
  duration: number;
}

/** What a limit's counter offers: rate-limiter-flexible's consume (rejects past the limit). */
export type RateLimitCounter = Pick<RateLimiterAbstract, 'consume'>;

/**
 * Makes the counter of each limit with rate-limiter-flexible. A port: Redis when the gateway
 * runs as its own process (every replica shares the counts), memory when everything runs in
 * one process.
 */
export interface RateLimiters {
  counter(limit: RateLimit): RateLimitCounter;
}

export const RATE_LIMITERS = Symbol('RATE_LIMITERS');
