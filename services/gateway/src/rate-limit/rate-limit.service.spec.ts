import { HttpException } from '@nestjs/common';
import type { Response } from 'express';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import { MemoryRateLimiter } from './memory-rate-limiter';
import type { RateLimiter } from './rate-limiter';
import { RateLimitService } from './rate-limit.service';

const config = {
  RATE_LIMIT_WINDOW_SECONDS: 60,
  API_RATE_LIMIT: 100,
  SHORTEN_RATE_LIMIT_ANONYMOUS: 2,
  SHORTEN_RATE_LIMIT_SIGNED_IN: 4,
  SHORTEN_RATE_LIMIT_API_KEY: 6,
  SIGN_IN_RATE_LIMIT: 10,
} as GatewayConfig;
const logger = { warn: jest.fn() } as unknown as Logger;

function response(): Response & { headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  return {
    headers,
    setHeader: (name: string, value: string) => (headers[name] = value),
  } as unknown as Response & { headers: Record<string, string> };
}

async function refusal(run: () => Promise<void>): Promise<HttpException> {
  try {
    await run();
  } catch (error) {
    if (error instanceof HttpException) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('RateLimitService', () => {
  it('answers shortening past the limit with 403, Retry-After and a message the page shows', async () => {
    const limits = new RateLimitService(new MemoryRateLimiter(), config, logger);
    const res = response();
    await limits.enforce('shorten-anonymous', '203.0.113.9', res);
    await limits.enforce('shorten-anonymous', '203.0.113.9', res);
    const error = await refusal(() => limits.enforce('shorten-anonymous', '203.0.113.9', res));
    expect(error.getStatus()).toBe(403);
    expect(error.getResponse()).toEqual({
      message: 'Too many links shortened: please wait 60 seconds, or sign in for a higher limit.',
    });
    expect(res.headers['retry-after']).toBe('60');
  });

  it("counts a user's keys' shortening on its own budget, apart from the web page's", async () => {
    const limits = new RateLimitService(new MemoryRateLimiter(), config, logger);
    expect(await limits.grant('shorten-api-key', 'user-1', 6, response())).toMatchObject({
      granted: 6,
    });
    const error = await refusal(() => limits.enforce('shorten-api-key', 'user-1', response()));
    expect(error.getStatus()).toBe(429);
    for (let i = 0; i < 4; i += 1) await limits.enforce('shorten-signed-in', 'user-1', response());
  });

  it('answers the other limits with 429 and Retry-After', async () => {
    const limits = new RateLimitService(new MemoryRateLimiter(), config, logger);
    for (let i = 0; i < 10; i += 1) await limits.enforce('sign-in', '203.0.113.9', response());
    const res = response();
    const error = await refusal(() => limits.enforce('sign-in', '203.0.113.9', res));
    expect(error.getStatus()).toBe(429);
    expect(res.headers['retry-after']).toBe('60');
  });

  it('is stricter for anonymous shortening than for signed-in users', async () => {
    const limits = new RateLimitService(new MemoryRateLimiter(), config, logger);
    for (let i = 0; i < 4; i += 1) await limits.enforce('shorten-signed-in', 'user-1', response());
    await expect(limits.enforce('shorten-signed-in', 'user-1', response())).rejects.toThrow(
      HttpException,
    );
  });

  it('counts each bucket and each subject apart', async () => {
    const limits = new RateLimitService(new MemoryRateLimiter(), config, logger);
    await limits.enforce('shorten-anonymous', 'a', response());
    await limits.enforce('shorten-anonymous', 'a', response());
    await limits.enforce('shorten-anonymous', 'b', response());
    await limits.enforce('api', 'a', response());
  });

  it('lets requests through when the counter store cannot answer', async () => {
    const broken: RateLimiter = { hit: () => Promise.reject(new Error('Redis away')) };
    const limits = new RateLimitService(broken, config, logger);
    await limits.enforce('shorten-anonymous', 'a', response());
    expect(logger.warn).toHaveBeenCalled();
  });
});
