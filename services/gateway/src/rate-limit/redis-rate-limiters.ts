import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from '@shortener/chassis-redis';
import type { RateLimit, RateLimiters } from './rate-limiter';

/** Every Redis key the gateway's limits write starts here. */
const KEY_PREFIX = 'ratelimit';

/** Says once when counting leaves Redis for this process, and once when it is back. */
class Outage {
  /** Hits counted in this process so far. */
  insured = 0;
  private away = false;

  constructor(private readonly logger: Pick<Logger, 'warn' | 'info'>) {}

  began(): void {
    this.insured += 1;
    if (this.away) return;
    this.away = true;
    this.logger.warn('Redis unavailable: rate limits counted in this process until it is back');
  }

  ended(): void {
    if (!this.away) return;
    this.away = false;
    this.logger.info('Redis back: rate limits counted in Redis again');
  }
}

/** The insurance limiter, which rate-limiter-flexible consults when Redis fails or is late. */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    limit: RateLimit,
    private readonly outage: Outage,
  ) {
    super(limit);
  }

  override consume(
    key: string | number,
    points?: number,
    options?: Record<string, unknown>,
  ): Promise<RateLimiterRes> {
    this.outage.began();
    return super.consume(key, points, options);
  }
}

/**
 * Counts in Redis, shared by every gateway replica, and in this process while Redis does not
 * answer (the insurance limiter): an outage loosens the limits (each replica counts alone,
 * from zero) instead of lifting them. `redis` should fail its commands fast (createRedis,
 * with a short command timeout), so every hit tries Redis first and counting goes back to it
 * as soon as it answers.
 */
export function redisRateLimiters(
  redis: Redis,
  logger: Pick<Logger, 'warn' | 'info'>,
): RateLimiters {
  const outage = new Outage(logger);
  return {
    counter: (limit) => {
      const shared = new RateLimiterRedis({
        ...limit,
        keyPrefix: `${KEY_PREFIX}:${limit.keyPrefix}`,
        storeClient: redis,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new InsuranceLimiter(limit, outage),
      });
      return {
        consume: async (key, points) => {
          const insured = outage.insured;
          try {
            return await shared.consume(key, points);
          } finally {
            // Nothing counted in this process meanwhile: Redis answered this hit.
            if (outage.insured === insured) outage.ended();
          }
        },
      };
    },
  };
}
