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

/** The stored value of a deleted link (kept a while so no redirect refills it). */
export const GONE_VALUE = '!';

/** Value format: "<expiresAt>|<url>" for a link, "!" for a deleted one. */
export function encodeLink(link: CachedLink): string {
  return `${link.expiresAt}|${link.url}`;
}

export type RedirectTarget = { ok: true; location: string } | { ok: false; reason: string };

/**
 * Where a stored URL may send a browser: the serialised form of an absolute http(s) URL
 * without control characters (CR and LF above all). Links are checked when they are
 * created; this is for what comes back, since whoever can write to Redis can put any text
 * under `link:{code}`.
 */
export function redirectTarget(url: string): RedirectTarget {
  if (/\p{Cc}/u.test(url)) {
    return { ok: false, reason: 'control characters' };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, reason: `scheme ${parsed.protocol.slice(0, 20)} is not http or https` };
  }
  return { ok: true, location: parsed.href };
}

/** A value under `link:{code}` that names a target no redirect may send a browser to. */
export class RefusedEntry {
  constructor(readonly reason: string) {}
}

/**
 * Reads a stored value: a link, GONE, null for no entry or an unreadable one, or a
 * RefusedEntry for a link to anything but an http(s) URL.
 */
export function decodeLink(value: string | null): CacheEntry | RefusedEntry {
  if (value === null) return null;
  if (value === GONE_VALUE) return GONE;
  const separator = value.indexOf('|');
  if (separator <= 0) return null;
  const expiresAt = Number(value.slice(0, separator));
  const url = value.slice(separator + 1);
  if (!Number.isSafeInteger(expiresAt) || url === '') return null;
  const target = redirectTarget(url);
  return target.ok ? { url, expiresAt } : new RefusedEntry(target.reason);
}
