import type * as IORedis from 'ioredis';
import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '@shortener/chassis';

export type { Redis } from 'ioredis';

/**
 * ioredis, loaded by the first client made: a process that never talks to Redis (the
 * embedded mode, unless REDIS_URL is set) never loads it. require, not import(): making a
 * client stays synchronous.
 */
function ioredis(): typeof IORedis {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('ioredis') as typeof IORedis;
}

/**
 * How long a command may wait for its answer. Redis answers in a millisecond or so; a
 * command on its way when the connection drops is kept by ioredis to be sent again once
 * Redis is back, and no flush of its queues reaches it, so without this it waits out the
 * whole outage (and a redirect sharing its lookup with it).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

/**
 * An ioredis client that reconnects forever in the background but fails commands fast
 * while disconnected (no offline queue, a deadline on each command), so callers can fall
 * back instead of waiting. A connection that waits for Redis on purpose (a subscription:
 * `maxRetriesPerRequest: null`, its commands queued while offline) has no deadline.
 */
export function createRedis(url: string, logger: Logger, extra: RedisOptions = {}): Redis {
  const waits = extra.maxRetriesPerRequest === null;
  const RedisClient = ioredis().Redis;
  const client = new RedisClient(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    ...(waits ? {} : { commandTimeout: REDIS_COMMAND_TIMEOUT_MS }),
    ...extra,
  });
  let warned = false;
  client.on('error', (error: Error) => {
    if (!warned) logger.warn({ err: error.message }, 'Redis unavailable, retrying');
    warned = true;
  });
  client.on('ready', () => {
    if (warned) logger.info('Redis connected');
    warned = false;
  });
  return client;
}

export function redisReadiness(client: Redis, name = 'redis'): ReadinessCheck {
  return {
    name,
    check: async () => {
      if (client.status !== 'ready') throw new Error(`not connected (${client.status})`);
      await client.ping();
    },
  };
}

export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
