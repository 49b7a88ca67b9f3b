import type { Logger } from '@shortener/chassis';
import { redisLinkCache } from '@shortener/link-cache';
import type { LinksConfig } from './config';
import type { LinksAdapters } from './service';

/** The distributed mode's adapters, from the configuration: the link cache in Redis. */
export function connectAdapters(config: LinksConfig, logger: Logger): LinksAdapters {
  return { linkCache: redisLinkCache(config.REDIS_URL, logger) };
}
