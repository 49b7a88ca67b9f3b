import { Global, Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { REDIS, SERVICE_LOGGER } from '@shortener/chassis-nest';
import { FallbackRateLimiter } from './fallback-rate-limiter';
import { MemoryRateLimiter } from './memory-rate-limiter';
import { RATE_LIMITER, type RateLimiter } from './rate-limiter';
import { RateLimitService } from './rate-limit.service';
import { RedisRateLimiter } from './redis-rate-limiter';
import { ShortenRateLimitGuard } from './shorten-rate-limit.guard';

const redisLimiter: Provider = {
  provide: RATE_LIMITER,
  inject: [REDIS, SERVICE_LOGGER],
  useFactory: (redis: Redis, logger: Logger): RateLimiter =>
    new FallbackRateLimiter(new RedisRateLimiter(redis), new MemoryRateLimiter(), logger),
};

const memoryLimiter: Provider = {
  provide: RATE_LIMITER,
  useFactory: (): RateLimiter => new MemoryRateLimiter(),
};

@Global()
@Module({})
export class RateLimitModule {
  /**
   * Counts in Redis, shared by every replica (in this process while Redis is away); or in
   * memory when the gateway runs alone.
   */
  static forRoot(store: 'redis' | 'memory'): DynamicModule {
    return {
      module: RateLimitModule,
      providers: [
        store === 'redis' ? redisLimiter : memoryLimiter,
        RateLimitService,
        ShortenRateLimitGuard,
      ],
      exports: [RateLimitService, ShortenRateLimitGuard],
    };
  }
}
