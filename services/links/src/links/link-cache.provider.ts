import type { Provider } from '@nestjs/common';
import { REDIS } from '@shortener/chassis-nest';
import { RedisLinkCache, sharedMemoryLinkCache, type LinkCache } from '@shortener/link-cache';
import type { Redis } from '@shortener/chassis-redis';

export const LINK_CACHE = Symbol('LINK_CACHE');
export type { LinkCache };

export const redisLinkCacheProvider: Provider = {
  provide: LINK_CACHE,
  inject: [REDIS],
  useFactory: (redis: Redis): LinkCache => new RedisLinkCache(redis),
};

/** The embedded mode: the cache shared in-process with the redirect service. */
export const memoryLinkCacheProvider: Provider = {
  provide: LINK_CACHE,
  useFactory: (): LinkCache => sharedMemoryLinkCache(),
};
