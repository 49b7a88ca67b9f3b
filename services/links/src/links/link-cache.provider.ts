import type { Provider } from '@nestjs/common';
import { REDIS } from '@shortener/chassis/nest';
import { RedisLinkCache, type LinkCache } from '@shortener/link-cache';
import type { Redis } from '@shortener/chassis/redis';

export const LINK_CACHE = Symbol('LINK_CACHE');
export type { LinkCache };

export const linkCacheProvider: Provider = {
  provide: LINK_CACHE,
  inject: [REDIS],
  useFactory: (redis: Redis): LinkCache => new RedisLinkCache(redis),
};
