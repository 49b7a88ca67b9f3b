import type { Logger } from '@shortener/chassis';
import { closeRedis, createRedis, redisReadiness } from '@shortener/chassis-redis';
import type { GatewayConfig } from './config';
import { FallbackRateLimiter } from './rate-limit/fallback-rate-limiter';
import { MemoryRateLimiter } from './rate-limit/memory-rate-limiter';
import { RedisRateLimiter } from './rate-limit/redis-rate-limiter';
import type { GatewayAdapters } from './service';

/**
 * The distributed mode's adapters, from the configuration: rate limits counted in Redis,
 * shared by every replica, and in this process while Redis is away.
 */
export function connectAdapters(config: GatewayConfig, logger: Logger): GatewayAdapters {
  const redis = createRedis(config.REDIS_URL, logger);
  return {
    rateLimits: {
      value: new FallbackRateLimiter(new RedisRateLimiter(redis), new MemoryRateLimiter(), logger),
      checks: [redisReadiness(redis)],
      close: () => closeRedis(redis),
    },
  };
}
