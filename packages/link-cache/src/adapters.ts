import type { Adapter, Logger } from '@shortener/chassis';
import { closeRedis, createRedis, redisReadiness } from '@shortener/chassis-redis';
import type { LinkCache } from './link-cache';
import { RedisLinkCache, type RedisLinkCacheOptions } from './redis-link-cache';

/**
 * The link cache of the distributed mode: Redis at `url`, with its own connection, reported
 * as `redis` in /readyz and closed with the service.
 */
export function redisLinkCache(
  url: string,
  logger: Logger,
  options: RedisLinkCacheOptions = {},
): Adapter<LinkCache> {
  const redis = createRedis(url, logger);
  return {
    value: new RedisLinkCache(redis, options),
    checks: [redisReadiness(redis)],
    close: () => closeRedis(redis),
  };
}
