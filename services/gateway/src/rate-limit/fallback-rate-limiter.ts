import type { Logger } from 'pino';
import type { RateLimitDecision, RateLimiter } from './rate-limiter';

/** Redis answers in about a millisecond; past this it counts as away for this hit. */
const PRIMARY_TIMEOUT_MS = 500;

/**
 * Counts in the shared store (Redis) while it answers, and in this process while it does
 * not: an outage loosens the limits (each replica counts alone, from zero) instead of
 * lifting them. Every hit tries the shared store first (a disconnected client fails at
 * once), so counting goes back to it as soon as it answers. Each switch is logged once.
 */
export class FallbackRateLimiter implements RateLimiter {
  private away = false;

  constructor(
    private readonly shared: RateLimiter,
    private readonly local: RateLimiter,
    private readonly logger: Pick<Logger, 'warn' | 'info'>,
    private readonly timeoutMs = PRIMARY_TIMEOUT_MS,
  ) {}

  async hit(key: string, limit: number, windowMs: number, cost = 1): Promise<RateLimitDecision> {
    let decision: RateLimitDecision;
    try {
      decision = await this.withTimeout(this.shared.hit(key, limit, windowMs, cost));
    } catch (error) {
      if (!this.away) {
        this.away = true;
        this.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'Redis unavailable: rate limits counted in this process until it is back',
        );
      }
      return this.local.hit(key, limit, windowMs, cost);
    }
    if (this.away) {
      this.away = false;
      this.logger.info('Redis back: rate limits counted in Redis again');
    }
    return decision;
  }

  private withTimeout(hit: Promise<RateLimitDecision>): Promise<RateLimitDecision> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    return Promise.race([hit, timeout]).finally(() => clearTimeout(timer));
  }
}
