import { Global, Module, type DynamicModule } from '@nestjs/common';
import { RATE_LIMITERS, type RateLimiters } from './rate-limiter';
import { RateLimitService } from './rate-limit.service';
import { ShortenRateLimitGuard } from './shorten-rate-limit.guard';

@Global()
@Module({})
export class RateLimitModule {
  /**
   * Counts with the limiters the process chose: Redis, shared by every replica (in this process
   * while Redis is away), or memory when the gateway runs in the embedded mode.
   */
  static forRoot(limiters: RateLimiters): DynamicModule {
    return {
      module: RateLimitModule,
      providers: [
        { provide: RATE_LIMITERS, useValue: limiters },
        RateLimitService,
        ShortenRateLimitGuard,
      ],
      exports: [RateLimitService, ShortenRateLimitGuard],
    };
  }
}
