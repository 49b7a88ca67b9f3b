import { adapterConnector, type Adapter } from '@shortener/chassis';
import { redisLinkCache, type LinkCache } from '@shortener/link-cache';
import type { LinksConfig } from './config';

/** What the links service talks to beyond PostgreSQL: the link cache redirects read. */
export interface LinksAdapters {
  linkCache: Adapter<LinkCache>;
}

/** The distributed mode's adapters (but those given), from the configuration: the link cache in Redis. */
export const connectAdapters = adapterConnector<LinksConfig, LinksAdapters>((config, logger) => ({
  linkCache: () => redisLinkCache(config, logger),
}));
