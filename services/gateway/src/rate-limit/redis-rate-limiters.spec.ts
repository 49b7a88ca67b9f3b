import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { closeRedis, createRedis, type Redis } from '@shortener/chassis-redis';
import { hostPort, TcpProxy, testServers, viaPort, waitFor } from '@shortener/testkit';
import type { RateLimitCounter } from './rate-limiter';
import { redisRateLimiters } from './redis-rate-limiters';

/** The count after a hit, whether it was within the limit or not. */
async function hit(counter: RateLimitCounter, key: string, points = 1): Promise<RateLimiterRes> {
  try {
    return await counter.consume(key, points);
  } catch (error) {
    if (error instanceof RateLimiterRes) return error;
    throw error;
  }
}

const within = (res: RateLimiterRes, limit: number): boolean => res.consumedPoints <= limit;

/** A client as the gateway makes one (createRedis), once it is connected. */
async function connectedRedis(url: string, commandTimeout?: number): Promise<Redis> {
  const logger = { warn: jest.fn(), info: jest.fn() } as unknown as Logger;
  const redis = createRedis(url, logger, commandTimeout ? { commandTimeout } : {});
  await waitFor(() => redis.status === 'ready', { what: 'Redis connected' });
  return redis;
}

describe('redisRateLimiters', () => {
  let redis: Redis;
  const logger = { warn: jest.fn(), info: jest.fn() };

  beforeAll(async () => {
    redis = await connectedRedis(testServers.redisUrl);
  });

  afterAll(async () => {
    await closeRedis(redis);
  });

  const twoSecondCounter = (keyPrefix: string, points: number): RateLimitCounter =>
    redisRateLimiters(redis, logger).counter({ keyPrefix, points, duration: 2 });

  it('counts hits across callers in one window that expires by itself, under ratelimit:', async () => {
    const prefix = `test-${randomUUID()}`;
    const counter = twoSecondCounter(prefix, 3);
    const results = await Promise.all(Array.from({ length: 5 }, () => hit(counter, 'k')));
    expect(results.filter((result) => within(result, 3))).toHaveLength(3);
    expect(results.filter((result) => !within(result, 3))).toHaveLength(2);
    for (const result of results) {
      expect(result.msBeforeNext).toBeGreaterThan(0);
      expect(result.msBeforeNext).toBeLessThanOrEqual(2000);
    }
    const ttl = await redis.pttl(`ratelimit:${prefix}:k`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
    await redis.del(`ratelimit:${prefix}:k`);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('counts several at once (the links of a bulk call)', async () => {
    const prefix = `test-${randomUUID()}`;
    const counter = twoSecondCounter(prefix, 5);
    expect(await hit(counter, 'k', 3)).toMatchObject({ consumedPoints: 3, remainingPoints: 2 });
    expect(await hit(counter, 'k', 4)).toMatchObject({ consumedPoints: 7, remainingPoints: 0 });
    expect(await hit(counter, 'k', 1)).toMatchObject({ consumedPoints: 8 });
    await redis.del(`ratelimit:${prefix}:k`);
  });
});

describe('redisRateLimiters while Redis is away', () => {
  let proxy: TcpProxy;
  let redis: Redis;
  let logger: { warn: jest.Mock; info: jest.Mock };
  let counter: RateLimitCounter;

  beforeEach(async () => {
    proxy = await new TcpProxy(hostPort(testServers.redisUrl)).listen();
    redis = await connectedRedis(viaPort(testServers.redisUrl, proxy.port), 50);
    logger = { warn: jest.fn(), info: jest.fn() };
    const limiters = redisRateLimiters(redis, logger);
    counter = limiters.counter({ keyPrefix: `test-${randomUUID()}`, points: 3, duration: 60 });
  });

  afterEach(async () => {
    // Closed once connected: a client closed mid-reconnect leaves a timer running.
    proxy.restore();
    proxy.slow(0);
    await waitFor(() => redis.status === 'ready', { what: 'Redis connected again' });
    await closeRedis(redis);
    await proxy.close();
  });

  /** Redis out of reach, as the client knows once the connection drops. */
  async function cut(): Promise<void> {
    proxy.cut();
    await waitFor(() => redis.status !== 'ready', { what: 'Redis disconnected' });
  }

  it('keeps limiting in this process while Redis is unreachable, and says so once', async () => {
    await cut();
    const allowed = [];
    for (let i = 0; i < 5; i += 1) allowed.push(within(await hit(counter, 'a'), 3));
    expect(allowed).toEqual([true, true, true, false, false]);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledWith(
      'Redis unavailable: rate limits counted in this process until it is back',
    );
  });

  it('goes back to Redis as soon as it answers, and says so once', async () => {
    await cut();
    await hit(counter, 'a');
    proxy.restore();
    await waitFor(() => redis.status === 'ready', { what: 'Redis connected again' });
    await hit(counter, 'a');
    await hit(counter, 'a');
    expect(logger.info).toHaveBeenCalledTimes(1);
    expect(logger.info).toHaveBeenCalledWith('Redis back: rate limits counted in Redis again');
    // Redis counted the two hits since; the one in this process is not among them.
    expect(await hit(counter, 'a')).toMatchObject({ consumedPoints: 3, remainingPoints: 0 });
  });

  it('counts in this process when Redis does not answer in time', async () => {
    proxy.slow(300);
    const limit = { keyPrefix: `test-${randomUUID()}`, points: 1, duration: 60 };
    const slowCounter = redisRateLimiters(redis, logger).counter(limit);
    expect(within(await hit(slowCounter, 'a'), 1)).toBe(true);
    expect(within(await hit(slowCounter, 'a'), 1)).toBe(false);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });
});
