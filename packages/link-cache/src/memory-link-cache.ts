import { EventEmitter } from 'node:events';
import { GONE, type CacheEntry, type CachedLink, type LinkCache } from './link-cache';
import { GONE_TTL_MS } from './redis-link-cache';

interface Stored {
  entry: CachedLink | typeof GONE;
  until: number;
}

/**
 * The embedded mode's link cache: one per process, shared by the links and redirect
 * services running in it, with the same expiry and gone-marker rules as Redis. Nothing
 * outside the process writes to it, so no entry can be replayed: versions are not kept.
 */
export class MemoryLinkCache implements LinkCache {
  private readonly entries = new Map<string, Stored>();
  private readonly invalidations = new EventEmitter();

  get(code: string, _minVersion?: number): Promise<CacheEntry> {
    const stored = this.entries.get(code);
    if (!stored) return Promise.resolve(null);
    if (stored.until <= Date.now()) {
      this.entries.delete(code);
      return Promise.resolve(null);
    }
    return Promise.resolve(stored.entry);
  }

  set(code: string, link: CachedLink): Promise<void> {
    if (link.expiresAt > Date.now()) this.entries.set(code, { entry: link, until: link.expiresAt });
    return Promise.resolve();
  }

  async refill(code: string, link: CachedLink): Promise<void> {
    if ((await this.get(code)) === null) await this.set(code, link);
  }

  delete(code: string, _version?: number): Promise<void> {
    this.entries.set(code, { entry: GONE, until: Date.now() + GONE_TTL_MS });
    this.invalidations.emit('code', code);
    return Promise.resolve();
  }

  replace(code: string, link: CachedLink): Promise<void> {
    if (link.expiresAt > Date.now()) this.entries.set(code, { entry: link, until: link.expiresAt });
    else this.entries.delete(code);
    this.invalidations.emit('code', code);
    return Promise.resolve();
  }

  subscribe(listener: (code: string | null) => void): Promise<() => Promise<void>> {
    this.invalidations.on('code', listener);
    return Promise.resolve(() => {
      this.invalidations.off('code', listener);
      return Promise.resolve();
    });
  }
}
