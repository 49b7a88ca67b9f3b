import Redis, { type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '@shortener/chassis';

export type { Redis } from 'ioredis';

/**
 * An ioredis client that reconnects forever in the background but fails commands fast
 * while disconnected (no offline queue), so callers can fall back instead of waiting.
 */
export function createRedis(url: string, logger: Logger, extra: RedisOptions = {}): Redis {
  const client = new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
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
