import { RateLimiterRes } from 'rate-limiter-flexible';
import { memoryRateLimiters } from './memory-rate-limiters';
import type { RateLimitCounter } from './rate-limiter';

/** What a hit answers: within the limit or not, and the count rate-limiter-flexible gives. */
async function hit(counter: RateLimitCounter, key: string, points = 1) {
  try {
    return { allowed: true, ...(await counter.consume(key, points)).toJSON() };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { allowed: false, ...error.toJSON() };
    throw error;
  }
}

describe('memoryRateLimiters', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('allows the limit in a window, refuses past it, and starts over in the next', async () => {
    const counter = memoryRateLimiters.counter({ keyPrefix: 'api', points: 3, duration: 60 });
    for (let i = 1; i <= 3; i += 1) {
      expect(await hit(counter, 'k')).toMatchObject({
        allowed: true,
        remainingPoints: 3 - i,
        msBeforeNext: 60_000,
        consumedPoints: i,
      });
    }
    jest.advanceTimersByTime(15_000);
    expect(await hit(counter, 'k')).toMatchObject({
      allowed: false,
      remainingPoints: 0,
      msBeforeNext: 45_000,
    });
    expect((await hit(counter, 'other')).allowed).toBe(true);
    jest.advanceTimersByTime(45_000);
    expect(await hit(counter, 'k')).toMatchObject({ allowed: true, remainingPoints: 2 });
  });

  it('counts several at once (the links of a bulk call)', async () => {
    const counter = memoryRateLimiters.counter({ keyPrefix: 'api', points: 5, duration: 60 });
    expect(await hit(counter, 'k', 3)).toMatchObject({ allowed: true, consumedPoints: 3 });
    expect(await hit(counter, 'k', 4)).toMatchObject({ allowed: false, consumedPoints: 7 });
    expect(await hit(counter, 'k', 2)).toMatchObject({ allowed: false, consumedPoints: 9 });
  });
});
