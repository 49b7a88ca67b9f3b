import type { Redis } from 'ioredis';
import { decide, type RateLimitDecision, type RateLimiter } from './rate-limiter';

/** Every Redis key the gateway writes starts here. */
const KEY_PREFIX = 'ratelimit:';

// Counts and starts the window in one step, so concurrent gateways never lose a hit or
// leave a counter without expiry.
const HIT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`;

/** Fixed windows in Redis, shared by every gateway replica. */
export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly redis: Redis) {}

  async hit(key: string, limit: number, windowMs: number, cost = 1): Promise<RateLimitDecision> {
    const [count, ttl] = (await this.redis.eval(
      HIT_SCRIPT,
      1,
      `${KEY_PREFIX}${key}`,
      String(windowMs),
      String(cost),
    )) as [number, number];
    return decide(count, limit, ttl, cost);
  }
}
