import { MemoryRateLimiter } from './memory-rate-limiter';

describe('MemoryRateLimiter', () => {
  it('allows the limit in a window, refuses past it, and starts over in the next', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter(() => now);
    for (let i = 1; i <= 3; i += 1) {
      expect(await limiter.hit('k', 3, 60_000)).toEqual({
        allowed: true,
        remaining: 3 - i,
        resetInMs: 60_000,
        granted: 1,
      });
    }
    now += 15_000;
    expect(await limiter.hit('k', 3, 60_000)).toEqual({
      allowed: false,
      remaining: 0,
      resetInMs: 45_000,
      granted: 0,
    });
    expect((await limiter.hit('other', 3, 60_000)).allowed).toBe(true);
    now += 45_000;
    expect(await limiter.hit('k', 3, 60_000)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('counts several at once (the links of a bulk call), granting those within the limit', async () => {
    const limiter = new MemoryRateLimiter(() => 1_000_000);
    expect(await limiter.hit('k', 5, 60_000, 3)).toMatchObject({ allowed: true, granted: 3 });
    expect(await limiter.hit('k', 5, 60_000, 4)).toMatchObject({ allowed: false, granted: 2 });
    expect(await limiter.hit('k', 5, 60_000, 2)).toMatchObject({ allowed: false, granted: 0 });
  });
});
