import { HttpException } from '@nestjs/common';
import type { Response } from 'express';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import { memoryRateLimiters } from './memory-rate-limiters';
import type { RateLimiters } from './rate-limiter';
import { RateLimitService } from './rate-limit.service';

const config = {
  RATE_LIMIT_WINDOW_SECONDS: 60,
  API_RATE_LIMIT: 100,
  API_KEY_RATE_LIMIT: 20,
  SHORTEN_RATE_LIMIT_ANONYMOUS: 2,
  SHORTEN_RATE_LIMIT_SIGNED_IN: 4,
  SHORTEN_RATE_LIMIT_API_KEY: 6,
  SIGN_IN_RATE_LIMIT: 10,
} as GatewayConfig;
const logger = { warn: jest.fn() } as unknown as Logger;
/** A store whose every count fails, as Redis would with no insurance limiter. */
const unreachable: RateLimiters = {
  counter: () => ({ consume: () => Promise.reject(new Error('Redis away')) }),
};

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
    const limits = new RateLimitService(memoryRateLimiters, config, logger);
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
    const limits = new RateLimitService(memoryRateLimiters, config, logger);
    expect(await limits.grant('shorten-api-key', 'user-1', 6, response())).toMatchObject({
      granted: 6,
    });
    const error = await refusal(() => limits.enforce('shorten-api-key', 'user-1', response()));
    expect(error.getStatus()).toBe(429);
    for (let i = 0; i < 4; i += 1) await limits.enforce('shorten-signed-in', 'user-1', response());
  });

  it('grants the links of a bulk call within the limit, with Retry-After for the others', async () => {
    const limits = new RateLimitService(memoryRateLimiters, config, logger);
    const res = response();
    expect(await limits.grant('shorten-api-key', 'user-1', 4, res)).toMatchObject({ granted: 4 });
    expect(res.headers['retry-after']).toBeUndefined();
    expect(await limits.grant('shorten-api-key', 'user-1', 4, res)).toEqual({
      granted: 2,
      refusal: 'Too many links shortened: please wait 60 seconds and try again.',
    });
    expect(res.headers['retry-after']).toBe('60');
    expect(await limits.grant('shorten-api-key', 'user-1', 2, response())).toMatchObject({
      granted: 0,
    });
  });

  it('grants a bulk call in full when the counter store cannot answer', async () => {
    const limits = new RateLimitService(unreachable, config, logger);
    expect(await limits.grant('shorten-api-key', 'user-1', 8, response())).toEqual({
      granted: 8,
      refusal: '',
    });
  });

  it('answers the other limits with 429 and Retry-After', async () => {
    const limits = new RateLimitService(memoryRateLimiters, config, logger);
    for (let i = 0; i < 10; i += 1) await limits.enforce('sign-in', '203.0.113.9', response());
    const res = response();
    const error = await refusal(() => limits.enforce('sign-in', '203.0.113.9', res));
    expect(error.getStatus()).toBe(429);
    expect(res.headers['retry-after']).toBe('60');
  });

  it('is stricter for anonymous shortening than for signed-in users', async () => {
    const limits = new RateLimitService(memoryRateLimiters, config, logger);
    for (let i = 0; i < 4; i += 1) await limits.enforce('shorten-signed-in', 'user-1', response());
    await expect(limits.enforce('shorten-signed-in', 'user-1', response())).rejects.toThrow(
      HttpException,
    );
  });

  it('counts each bucket and each subject apart', async () => {
    const limits = new RateLimitService(memoryRateLimiters, config, logger);
    await limits.enforce('shorten-anonymous', 'a', response());
    await limits.enforce('shorten-anonymous', 'a', response());
    await limits.enforce('shorten-anonymous', 'b', response());
    await limits.enforce('api', 'a', response());
  });

  it('lets requests through when the counter store cannot answer', async () => {
    const limits = new RateLimitService(unreachable, config, logger);
    await limits.enforce('shorten-anonymous', 'a', response());
    expect(logger.warn).toHaveBeenCalled();
  });
});
