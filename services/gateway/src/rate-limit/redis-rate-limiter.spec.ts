import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { testServers } from '@shortener/testkit';
import { RedisRateLimiter } from './redis-rate-limiter';

describe('RedisRateLimiter', () => {
  const redis = new Redis(testServers.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const limiter = new RedisRateLimiter(redis);

  afterAll(async () => {
    await redis.quit();
  });

  it('counts hits across callers in one window that expires by itself', async () => {
    const key = `test:${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 5 }, () => limiter.hit(key, 3, 2000)));
    expect(results.filter((result) => result.allowed)).toHaveLength(3);
    expect(results.filter((result) => !result.allowed)).toHaveLength(2);
    for (const result of results) {
      expect(result.resetInMs).toBeGreaterThan(0);
      expect(result.resetInMs).toBeLessThanOrEqual(2000);
    }
    const ttl = await redis.pttl(`ratelimit:${key}`);
    expect(ttl).toBeGreaterThan(0);
    await redis.del(`ratelimit:${key}`);
  });

  it('counts several at once (the links of a bulk call), granting those within the limit', async () => {
    const key = `test:${randomUUID()}`;
    expect(await limiter.hit(key, 5, 2000, 3)).toMatchObject({ allowed: true, granted: 3 });
    expect(await limiter.hit(key, 5, 2000, 4)).toMatchObject({ allowed: false, granted: 2 });
    expect(await limiter.hit(key, 5, 2000, 1)).toMatchObject({ allowed: false, granted: 0 });
    const ttl = await redis.pttl(`ratelimit:${key}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
    await redis.del(`ratelimit:${key}`);
  });
});
