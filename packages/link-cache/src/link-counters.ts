import type { Redis } from 'ioredis';

/**
 * What the redirect counts per link beside its cache entry: the visits of a link with a cap
 * (maxVisits), and the wrong password tries per link and client. In Redis in the distributed
 * mode, so every redirect instance counts together; in memory in the embedded one.
 */
export interface LinkCounters {
  /** Counts one visit of a capped link (kept until the link expires); the count with it. */
  countVisit(urlId: string, expiresAt: number): Promise<number>;
  /** The visits counted so far. */
  visits(urlId: string): Promise<number>;
  /**
   * Takes one password try of `client` (a clientKey) on a link, `limit` a window of
   * `windowMs` from its first try: whether it may try, else how long until it may again.
   */
  takeTry(urlId: string, client: string, limit: number, windowMs: number): Promise<TryTaken>;
  /** Gives back a try that was right: only wrong ones are limited. */
  refundTry(urlId: string, client: string): Promise<void>;
}

export type TryTaken = { allowed: true } | { allowed: false; retryAfterMs: number };

export const visitsKey = (urlId: string): string => `visits:${urlId}`;
export const triesKey = (urlId: string, client: string): string => `tries:${urlId}:${client}`;

/** INCR, expiring at ARGV[1] (ms since the epoch) from the first count. */
const COUNT_VISIT = `local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIREAT', KEYS[1], ARGV[1]) end
return count`;

/** INCR within a window of ARGV[2] ms; past ARGV[1] tries, undone and the window's rest. */
const TAKE_TRY = `local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if count > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return -math.max(redis.call('PTTL', KEYS[1]), 1)
end
return count`;

/** DECR of a window still open and above 0 (an ended one is not brought back without expiry). */
const REFUND_TRY = `if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

export class RedisLinkCounters implements LinkCounters {
  constructor(private readonly redis: Redis) {}

  async countVisit(urlId: string, expiresAt: number): Promise<number> {
    return Number(await this.redis.eval(COUNT_VISIT, 1, visitsKey(urlId), expiresAt));
  }

  async visits(urlId: string): Promise<number> {
    return Number((await this.redis.get(visitsKey(urlId))) ?? 0);
  }

  async takeTry(urlId: string, client: string, limit: number, windowMs: number) {
    const key = triesKey(urlId, client);
    const taken = Number(await this.redis.eval(TAKE_TRY, 1, key, limit, windowMs));
    return taken > 0
      ? ({ allowed: true } as const)
      : { allowed: false as const, retryAfterMs: -taken };
  }

  async refundTry(urlId: string, client: string): Promise<void> {
    await this.redis.eval(REFUND_TRY, 1, triesKey(urlId, client));
  }
}

/** Counts kept at once by the in-process counters; the oldest go first. */
const MEMORY_MAX_ENTRIES = 100_000;

/** The embedded mode's counters, in this process (its one redirect instance). */
export class MemoryLinkCounters implements LinkCounters {
  private readonly counts = new Map<string, { count: number; until: number }>();

  countVisit(urlId: string, expiresAt: number): Promise<number> {
    return Promise.resolve(this.add(visitsKey(urlId), 1, expiresAt, Date.now()));
  }

  visits(urlId: string): Promise<number> {
    return Promise.resolve(this.current(visitsKey(urlId), Date.now())?.count ?? 0);
  }

  takeTry(urlId: string, client: string, limit: number, windowMs: number): Promise<TryTaken> {
    const now = Date.now();
    const key = triesKey(urlId, client);
    if (this.add(key, 1, now + windowMs, now) <= limit) return Promise.resolve({ allowed: true });
    const entry = this.counts.get(key)!;
    entry.count -= 1;
    return Promise.resolve({ allowed: false, retryAfterMs: Math.max(1, entry.until - now) });
  }

  refundTry(urlId: string, client: string): Promise<void> {
    const entry = this.current(triesKey(urlId, client), Date.now());
    if (entry !== undefined && entry.count > 0) entry.count -= 1;
    return Promise.resolve();
  }

  private current(key: string, now: number) {
    const entry = this.counts.get(key);
    if (entry === undefined || entry.until > now) return entry;
    this.counts.delete(key);
    return undefined;
  }

  /** Adds `by` to a count, which a new count keeps until `until`; the count with it. */
  private add(key: string, by: number, until: number, now: number): number {
    const entry = this.current(key, now);
    if (entry !== undefined) return (entry.count += by);
    if (this.counts.size >= MEMORY_MAX_ENTRIES) {
      const oldest = this.counts.keys().next();
      if (!oldest.done) this.counts.delete(oldest.value);
    }
    this.counts.set(key, { count: by, until });
    return by;
  }
}
