import { adapterConnector, type Adapter } from '@shortener/chassis';
import { closeRedis, createRedis, redisReadiness } from '@shortener/chassis-redis';
import { redisKeyRevocations, type KeyRevocations } from './api-keys/key-revocations';
import type { GatewayConfig } from './config';
import type { RateLimiters } from './rate-limit/rate-limiter';
import { redisRateLimiters } from './rate-limit/redis-rate-limiters';
import { redisLiveVisits, type LiveVisitFeed } from './stats/live-visits';

/** Redis answers a hit in about a millisecond; past this the hit is counted in this process. */
const RATE_LIMIT_COMMAND_TIMEOUT_MS = 500;

/**
 * What the gateway talks to beyond the services: where rate limits are counted, and the feed
 * of stored visits its live streams send on.
 */
export interface GatewayAdapters {
  rateLimits: Adapter<RateLimiters>;
  liveVisits: Adapter<LiveVisitFeed>;
  /** Revoked API keys, announced to every instance. */
  keyRevocations: Adapter<KeyRevocations>;
}

/**
 * The distributed mode's adapters (but those given), from the configuration: rate limits
 * counted in Redis, shared by every replica, and in this process while Redis is away; the
 * stored visits' notices from Redis pub/sub.
 */
export const connectAdapters = adapterConnector<GatewayConfig, GatewayAdapters>(
  (config, logger) => ({
    rateLimits: () => {
      const redis = createRedis(config.REDIS_URL, logger, {
        commandTimeout: RATE_LIMIT_COMMAND_TIMEOUT_MS,
      });
      return {
        value: redisRateLimiters(redis, logger),
        checks: [redisReadiness(redis)],
        close: () => closeRedis(redis),
      };
    },
    liveVisits: () => redisLiveVisits(config.REDIS_URL, logger),
    keyRevocations: () => redisKeyRevocations(config.REDIS_URL, logger),
  }),
);
