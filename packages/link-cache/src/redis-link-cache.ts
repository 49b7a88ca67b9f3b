import type { KeyObject } from 'node:crypto';
import type { Redis } from 'ioredis';
import { acceptedSecrets } from '@shortener/chassis';
import {
  decodeInvalidation,
  decodeVersioned,
  decodeVersionNotice,
  encodeInvalidation,
  encodeGone,
  encodeLink,
  encodeVersionNotice,
  GONE,
  isVersionNotice,
  LEASE_MS,
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

/**
 * Writes ARGV[1] (version ARGV[2], expiring at ARGV[3] ms) unless the key holds a newer version,
 * so out-of-order writes never put an older one back; an unversioned entry is replaced.
 */
const WRITE_UNLESS_NEWER = `local current = redis.call('GET', KEYS[1])
if current then
  local version = string.match(current, '^[^|]*|!?[vr](%d+):')
  if version and tonumber(version) > tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[3])
return 1`;

export class RedisLinkCache implements LinkCache {
  /** The key that signs, then the other one accepted during a rotation. */
  private readonly keys: KeyObject[];
  private readonly key: KeyObject;

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
  /**
   * An entry below `minVersion`, a gone marker past its lease (a live link's is left to the
   * caller: `leaseUntil`), or one of the first signed form, without a version, reads as
   * unknown: the caller asks the links service, whose refill puts the current entry in its
   * place.
   */
  async get(code: string, minVersion = 0): Promise<CacheEntry> {
    const value = await this.redis.get(linkKey(code));
    const read = decodeVersioned(this.keys, code, value);
    if (read instanceof RefusedEntry) {
      this.options.onRefused?.(code, read.reason);
      await this.redis.eval(DELETE_IF_UNCHANGED, 1, linkKey(code), value!);
      return null;
    }
    if (read === null || read.version < minVersion) return null;
    if (read.entry === GONE) return read.leaseUntil > Date.now() ? GONE : null;
    return { ...read.entry, leaseUntil: read.leaseUntil };
  }

  async set(code: string, link: CachedLink): Promise<void> {
    await this.writeLink(code, link);
  }

  async refill(code: string, link: CachedLink): Promise<void> {
    await this.writeLink(code, link);
  }

  async delete(code: string, version: number): Promise<void> {
    const leaseUntil = Date.now() + GONE_TTL_MS;
    const value = encodeGone(this.key, code, version, leaseUntil);
    await this.redis.eval(WRITE_UNLESS_NEWER, 1, linkKey(code), value, version, leaseUntil);
    await this.announce(code, version, true);
  }

  async replace(code: string, link: CachedLink): Promise<void> {
    if (link.expiresAt > Date.now()) await this.writeLink(code, link);
    else await this.redis.del(linkKey(code));
    await this.announce(code, link.version, false);
  }

  /** Stores a live link (version 0 for one read from a release that kept none). */
  private async writeLink(code: string, link: CachedLink): Promise<void> {
    const now = Date.now();
    if (link.expiresAt <= now) return;
    const version = link.version ?? 0;
    const value = encodeLink(this.key, code, { ...link, version }, now + LEASE_MS);
    await this.redis.eval(WRITE_UNLESS_NEWER, 1, linkKey(code), value, version, link.expiresAt);
  }

  /**
   * The change in the form every reader knows, then the version from then on, signed, for
   * the readers that keep it (a redirect refuses older entries of the code from then on).
   */
  private async announce(code: string, version: number | undefined, removed: boolean) {
    await this.redis.publish(INVALIDATION_CHANNEL, encodeInvalidation({ code, removed }));
    if (version !== undefined) {
      await this.redis.publish(INVALIDATION_CHANNEL, encodeVersionNotice(this.key, code, version));
    }
  }

  async subscribe(
    listener: (code: string | null, version?: number) => void,
  ): Promise<() => Promise<void>> {
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
      if (channel !== INVALIDATION_CHANNEL) return;
      if (!isVersionNotice(message)) {
        listener(decodeInvalidation(message).code);
        return;
      }
      // One not signed with our key is not believed (anyone with access to Redis can publish).
      const notice = decodeVersionNotice(this.keys, message);
      if (notice) listener(notice.code, notice.version);
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
