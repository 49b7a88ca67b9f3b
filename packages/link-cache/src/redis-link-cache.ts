import type { Redis } from 'ioredis';
import { acceptedSecrets } from '@shortener/chassis';
import {
  decodeInvalidation,
  decodeLink,
  encodeInvalidation,
  encodeGone,
  encodeLink,
  linkCacheKey,
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
  /** The secret the services share (INTERNAL_API_SECRET): entries are signed with a key from it. */
  secret: string;
  /** INTERNAL_API_SECRET_PREVIOUS: entries signed with a key from it are read too (a rotation). */
  previousSecret?: string | undefined;
  /** Told of each value refused on reading (forged, or a link to anything but http or https). */
  onRefused?: (code: string, reason: string) => void;
}

/** Deletes a key only while it still holds the value read (a newer write is left alone). */
const DELETE_IF_UNCHANGED = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class RedisLinkCache implements LinkCache {
  /** The key that signs, then the other one accepted during a rotation. */
  private readonly keys: Buffer[];
  private readonly key: Buffer;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisLinkCacheOptions,
  ) {
    this.keys = acceptedSecrets({
      INTERNAL_API_SECRET: options.secret,
      INTERNAL_API_SECRET_PREVIOUS: options.previousSecret,
    }).map(linkCacheKey);
    this.key = this.keys[0]!;
  }

  /**
   * A refused value reads as unknown: the caller asks the system of record, which has the
   * link as it was created, or answers that there is none. It is also removed (unless
   * rewritten meanwhile), so the refill that follows can put the true entry in its place.
   */
  async get(code: string): Promise<CacheEntry> {
    const value = await this.redis.get(linkKey(code));
    const entry = decodeLink(this.keys, code, value);
    if (!(entry instanceof RefusedEntry)) return entry;
    this.options.onRefused?.(code, entry.reason);
    await this.redis.eval(DELETE_IF_UNCHANGED, 1, linkKey(code), value!);
    return null;
  }

  async set(code: string, link: CachedLink): Promise<void> {
    if (link.expiresAt <= Date.now()) return;
    await this.redis.set(linkKey(code), encodeLink(this.key, code, link), 'PXAT', link.expiresAt);
  }

  async refill(code: string, link: CachedLink): Promise<void> {
    if (link.expiresAt <= Date.now()) return;
    const value = encodeLink(this.key, code, link);
    await this.redis.set(linkKey(code), value, 'PXAT', link.expiresAt, 'NX');
  }

  async delete(code: string): Promise<void> {
    await this.redis.set(linkKey(code), encodeGone(this.key, code), 'PX', GONE_TTL_MS);
    await this.redis.publish(INVALIDATION_CHANNEL, encodeInvalidation({ code, removed: true }));
  }

  async replace(code: string, link: CachedLink): Promise<void> {
    if (link.expiresAt > Date.now()) {
      await this.redis.set(linkKey(code), encodeLink(this.key, code, link), 'PXAT', link.expiresAt);
    } else {
      await this.redis.del(linkKey(code));
    }
    await this.redis.publish(INVALIDATION_CHANNEL, encodeInvalidation({ code, removed: false }));
  }

  async subscribe(listener: (code: string | null) => void): Promise<() => Promise<void>> {
    // A subscribed connection can do nothing else, so it is a connection of its own; it
    // queues while offline so the subscription is made whenever Redis comes up.
    const subscriber = this.redis.duplicate({
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
    });
    subscriber.on('error', () => undefined);
    let connectedBefore = false;
    subscriber.on('ready', () => {
      // Messages published while we were away are lost: the listener drops everything.
      if (connectedBefore) listener(null);
      connectedBefore = true;
    });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === INVALIDATION_CHANNEL) listener(decodeInvalidation(message).code);
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
