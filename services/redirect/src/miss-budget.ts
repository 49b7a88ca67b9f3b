import { LRUCache } from 'lru-cache';
import { clientKey } from '@shortener/chassis';

/** What one lookup may spend: a token taken before asking the links service, given back on a hit. */
export interface MissAllowance {
  /** False when the client has nothing left: the lookup is not made. */
  take(): boolean;
  refund(): void;
}

interface MissBudgetOptions {
  /** Misses a client may have per minute, over time. */
  perMinute: number;
  /** Misses a client may have at once. */
  burst: number;
  /** Clients remembered; the least recently seen is forgotten first. */
  maxClients: number;
}

interface Bucket {
  tokens: number;
  filledAt: number;
}

/**
 * A budget of misses (lookups that found no link) per client: a token bucket per client,
 * `burst` deep and refilled at `perMinute`, kept in this process in a bounded LRU so that
 * neither a flood of addresses nor the bookkeeping costs much. Only lookups that reach the
 * links service (the database) take from it; links found give their token back.
 */
export class MissBudget {
  private readonly buckets: LRUCache<string, Bucket>;
  private readonly perMs: number;

  constructor(private readonly options: MissBudgetOptions) {
    this.perMs = options.perMinute / 60_000;
    this.buckets = new LRUCache({ max: options.maxClients });
  }

  /** The allowance of the client at this address, for one lookup. */
  for(address: string): MissAllowance {
    const key = clientKey(address);
    return {
      take: () => {
        const bucket = this.fill(key, Date.now());
        if (bucket.tokens < 1) return false;
        bucket.tokens -= 1;
        return true;
      },
      refund: () => {
        const bucket = this.buckets.peek(key);
        if (bucket) bucket.tokens = Math.min(this.options.burst, bucket.tokens + 1);
      },
    };
  }

  /** Whole seconds until the client at this address may miss again, for Retry-After. */
  retryAfterSeconds(address: string): number {
    const bucket = this.buckets.peek(clientKey(address));
    const missing = bucket ? 1 - bucket.tokens : 0;
    return Math.max(1, Math.ceil(missing / this.perMs / 1000));
  }

  get clients(): number {
    return this.buckets.size;
  }

  /** The client's bucket, refilled to now; reading it makes the client the most recent. */
  private fill(key: string, now: number): Bucket {
    const bucket = this.buckets.get(key);
    if (!bucket) {
      const fresh = { tokens: this.options.burst, filledAt: now };
      this.buckets.set(key, fresh);
      return fresh;
    }
    bucket.tokens = Math.min(
      this.options.burst,
      bucket.tokens + (now - bucket.filledAt) * this.perMs,
    );
    bucket.filledAt = now;
    return bucket;
  }
}
