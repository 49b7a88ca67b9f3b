import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { RateLimiters } from './rate-limiter';

/** Counts in this process only: for the embedded mode and for tests. */
export const memoryRateLimiters: RateLimiters = {
  counter: (limit) => new RateLimiterMemory(limit),
};
