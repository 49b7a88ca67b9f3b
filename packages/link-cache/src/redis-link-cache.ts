import type { Redis } from 'ioredis';
import {
  decodeLink,
  encodeLink,
  GONE_VALUE,
  RefusedEntry,
  type CacheEntry,
  type CachedLink,
  type LinkCache,
} from './link-cache';

export const linkKey = (code: string): string => `link:${code}`;
export const INVALIDATION_CHANNEL = 'link:invalidated';
/** How long a deleted link stays marked gone: far longer than any refill can take. */
export const GONE_TTL_MS = 60_000;

/**
 * Links in Redis as `link:{code}`, expiring at the link's own expiry (PXAT); deletions
 * leave a short-lived gone marker and are broadcast on a pub/sub channel so every
 * redirect instance drops its copy at once.
 */
export interface RedisLinkCacheOptions {
  /** Told of each value refused on reading (a link to anything but http or https). */
  onRefused?: (code: string, reason: string) => void;
}

export class RedisLinkCache implements LinkCache {
  constructor(
    private readonly redis: Redis,
    private readonly options: RedisLinkCacheOptions = {},
  ) {}

  /**
   * A refused value reads as unknown: the caller asks the system of record, which has the
   * link as it was created, or answers that there is none.
   */
  async get(code: string): Promise<CacheEntry> {
    const entry = decodeLink(await this.redis.get(linkKey(code)));
    if (!(entry instanceof RefusedEntry)) return entry;
    this.options.onRefused?.(code, entry.reason);
    return null;
  }

  async set(code: string, link: CachedLink): Promise<void> {
    if (link.expiresAt <= Date.now()) return;
    await this.redis.set(linkKey(code), encodeLink(link), 'PXAT', link.expiresAt);
  }

  async refill(code: string, link: CachedLink): Promise<void> {
    if (link.expiresAt <= Date.now()) return;
    await this.redis.set(linkKey(code), encodeLink(link), 'PXAT', link.expiresAt, 'NX');
  }

  async delete(code: string): Promise<void> {
    await this.redis.set(linkKey(code), GONE_VALUE, 'PX', GONE_TTL_MS);
    await this.redis.publish(INVALIDATION_CHANNEL, code);
  }

  async subscribe(listener: (code: string | null) => void): Promise<() => Promise<void>> {
    // A subscribed connection can do nothing else, so it is a connection of its own; it
    // queues while offline so the subscription is made whenever Redis comes up.
    const subscriber = this.redis.duplicate({
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
    });
    subscriber.on('error', () => undefined);
    let connectedBefore = false;
    subscriber.on('ready', () => {
      // Messages published while we were away are lost: the listener drops everything.
      if (connectedBefore) listener(null);
      connectedBefore = true;
    });
    subscriber.on('message', (channel: string, code: string) => {
      if (channel === INVALIDATION_CHANNEL) listener(code);
    });
    await subscriber.subscribe(INVALIDATION_CHANNEL);
    return async () => {
      try {
        await subscriber.quit();
      } catch {
        subscriber.disconnect();
      }
    };
  }
}
