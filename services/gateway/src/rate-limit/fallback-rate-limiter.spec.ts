import { FallbackRateLimiter } from './fallback-rate-limiter';
import { MemoryRateLimiter } from './memory-rate-limiter';
import type { RateLimiter } from './rate-limiter';

describe('FallbackRateLimiter', () => {
  function setUp() {
    const shared = { answers: false, calls: 0 };
    const sharedLimiter = new MemoryRateLimiter();
    const store: RateLimiter = {
      hit: (key, limit, windowMs) => {
        shared.calls += 1;
        return shared.answers
          ? sharedLimiter.hit(key, limit, windowMs)
          : Promise.reject(new Error("Stream isn't writeable"));
      },
    };
    const logger = { warn: jest.fn(), info: jest.fn() };
    const limiter = new FallbackRateLimiter(store, new MemoryRateLimiter(), logger, 50);
    return { shared, logger, limiter };
  }

  it('keeps limiting in this process while the shared store fails, and says so once', async () => {
    const { logger, limiter } = setUp();
    const allowed = [];
    for (let i = 0; i < 5; i += 1) allowed.push((await limiter.hit('api:a', 3, 60_000)).allowed);
    expect(allowed).toEqual([true, true, true, false, false]);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it('goes back to the shared store as soon as it answers, and says so once', async () => {
    const { shared, logger, limiter } = setUp();
    await limiter.hit('api:a', 3, 60_000);
    shared.answers = true;
    const callsBefore = shared.calls;
    await limiter.hit('api:a', 3, 60_000);
    await limiter.hit('api:a', 3, 60_000);
    expect(shared.calls - callsBefore).toBe(2);
    expect(logger.info).toHaveBeenCalledTimes(1);
    expect((await limiter.hit('api:a', 3, 60_000)).remaining).toBe(0);
  });

  it('counts in this process when the shared store does not answer in time', async () => {
    const logger = { warn: jest.fn(), info: jest.fn() };
    const silent: RateLimiter = { hit: () => new Promise(() => undefined) };
    const limiter = new FallbackRateLimiter(silent, new MemoryRateLimiter(), logger, 20);
    expect(await limiter.hit('api:a', 1, 60_000)).toMatchObject({ allowed: true });
    expect(await limiter.hit('api:a', 1, 60_000)).toMatchObject({ allowed: false });
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });
});
