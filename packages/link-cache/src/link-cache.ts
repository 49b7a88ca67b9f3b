/** What the redirect path needs to know about a live link. */
export interface CachedLink {
  url: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** A link deleted moments ago: known gone, so nobody asks the system of record again. */
export const GONE = 'gone';
export type CacheEntry = CachedLink | typeof GONE | null;

/**
 * The port the links and redirect services use for the shared link cache. The distributed
 * adapter is Redis; the embedded mode has an in-process one. Business code never knows which.
 */
export interface LinkCache {
  /** The link, GONE when it was just deleted, or null when the cache does not know. */
  get(code: string): Promise<CacheEntry>;
  /** Stores a new link until it expires; an already expired link is not stored. */
  set(code: string, link: CachedLink): Promise<void>;
  /**
   * Stores a link read back from the system of record after a cache miss, unless the cache
   * learned meanwhile that it was deleted (a refill must never resurrect a deleted link).
   */
  refill(code: string, link: CachedLink): Promise<void>;
  /** Marks a link gone and tells every redirect instance to drop its local copy at once. */
  delete(code: string): Promise<void>;
  /**
   * Calls `listener` with each invalidated code, and with null when invalidations may have
   * been missed (a reconnect): the listener should then drop everything it holds.
   */
  subscribe(listener: (code: string | null) => void): Promise<() => Promise<void>>;
}

const GONE_VALUE = '!';

/** Value format: "<expiresAt>|<url>" for a link, "!" for a deleted one. */
export function encodeLink(link: CachedLink): string {
  return `${link.expiresAt}|${link.url}`;
}

export function decodeLink(value: string | null): CacheEntry {
  if (value === null) return null;
  if (value === GONE_VALUE) return GONE;
  const separator = value.indexOf('|');
  if (separator <= 0) return null;
  const expiresAt = Number(value.slice(0, separator));
  const url = value.slice(separator + 1);
  if (!Number.isSafeInteger(expiresAt) || url === '') return null;
  return { url, expiresAt };
}

export const GONE_MARKER = GONE_VALUE;
