import { decide, type RateLimitDecision, type RateLimiter } from './rate-limiter';

const SWEEP_EVERY = 1000;

/** Counts in this process only: for the single-process mode and for tests. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private hits = 0;

  constructor(private readonly now: () => number = Date.now) {}

  hit(key: string, limit: number, windowMs: number, cost = 1): Promise<RateLimitDecision> {
    const now = this.now();
    if (++this.hits % SWEEP_EVERY === 0) this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += cost;
    return Promise.resolve(decide(window.count, limit, window.endsAt - now, cost));
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}
