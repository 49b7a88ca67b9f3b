import type { Adapter, Logger } from '@shortener/chassis';
import { closeRedis, createRedis, redisReadiness } from '@shortener/chassis-redis';
import type { LinkCache } from './link-cache';
import { RedisLinkCache } from './redis-link-cache';
import { RedisLinkCounters, type LinkCounters } from './link-counters';

/** What the link cache is made from: the variables the links and redirect services read. */
export interface LinkCacheSettings {
  REDIS_URL: string;
  /** Entries are signed with a key from it. */
  INTERNAL_API_SECRET: string;
  /** During a rotation: entries signed with a key from it are read too. */
  INTERNAL_API_SECRET_PREVIOUS?: string | undefined;
}

/**
 * The link cache of the distributed mode: Redis at REDIS_URL, with its own connection,
 * reported as `redis` in /readyz and closed with the service. `onRefused` is told of each
 * entry refused on reading (forged, or a link to a target no redirect may send to).
 */
export function redisLinkCache(
  settings: LinkCacheSettings,
  logger: Logger,
  onRefused?: (code: string, reason: string) => void,
): Adapter<LinkCache> {
  const redis = createRedis(settings.REDIS_URL, logger);
  return {
    value: new RedisLinkCache(redis, {
      secret: settings.INTERNAL_API_SECRET,
      previousSecret: settings.INTERNAL_API_SECRET_PREVIOUS,
      ...(onRefused ? { onRefused } : {}),
    }),
    checks: [redisReadiness(redis)],
    close: () => closeRedis(redis),
  };
}

/**
 * The link counters of the distributed mode (see LinkCounters): Redis at REDIS_URL, on a
 * connection of their own; reported by the link cache's readiness, closed with the service.
 */
export function redisLinkCounters(
  settings: { REDIS_URL: string },
  logger: Logger,
): Adapter<LinkCounters> {
  const redis = createRedis(settings.REDIS_URL, logger);
  return { value: new RedisLinkCounters(redis), checks: [], close: () => closeRedis(redis) };
}
