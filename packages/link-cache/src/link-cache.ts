import { createHmac, timingSafeEqual } from 'node:crypto';
import { checkTargetUrl } from './target-url';

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
   * Stores a link's new state (edited, or restored after a delete) over whatever the cache
   * holds, a gone marker included, and tells every redirect instance to drop its local copy
   * at once, on the broadcast deletions use (as a change, not a removal).
   */
  replace(code: string, link: CachedLink): Promise<void>;
  /**
   * Calls `listener` with each invalidated code, and with null when invalidations may have
   * been missed (a reconnect): the listener should then drop everything it holds.
   */
  subscribe(listener: (code: string | null) => void): Promise<() => Promise<void>>;
}

/**
 * What the invalidation broadcast carries: the bare code for a removal (as it always has), or
 * CHANGED_PREFIX and the code for a link that changed and is still live. Codes never contain
 * a colon, so the two cannot be confused.
 */
const CHANGED_PREFIX = 'changed:';

export interface Invalidation {
  code: string;
  /** True for a deletion or a purge; false for an edit or a restore. */
  removed: boolean;
}

export function encodeInvalidation({ code, removed }: Invalidation): string {
  return removed ? code : `${CHANGED_PREFIX}${code}`;
}

export function decodeInvalidation(message: string): Invalidation {
  return message.startsWith(CHANGED_PREFIX)
    ? { code: message.slice(CHANGED_PREFIX.length), removed: false }
    : { code: message, removed: true };
}

/** The stored value of a deleted link (kept a while so no redirect refills it), signed. */
const GONE_BODY = '!';

/**
 * The key that signs cache entries, derived from the secret the services share
 * (INTERNAL_API_SECRET) for this one use, so an entry's signature is never an internal token.
 */
export function linkCacheKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('shortener link cache entries v1').digest();
}

/** 128 bits of HMAC-SHA-256 over the code and the entry: base64url, 22 characters. */
const MAC_LENGTH = 22;

function entryMac(key: Buffer, code: string, body: string): string {
  return createHmac('sha256', key)
    .update(`${code}|${body}`)
    .digest('base64url')
    .slice(0, MAC_LENGTH);
}

/** `body` signed for `code`: "<mac>|<body>". */
function signed(key: Buffer, code: string, body: string): string {
  return `${entryMac(key, code, body)}|${body}`;
}

/**
 * Value format: "<mac>|<expiresAt>|<url>" for a link, "<mac>|!" for a deleted one, the MAC
 * keyed by linkCacheKey over the code and the rest, so that an entry written by anyone
 * without the key, or copied from another code, is told from one the links service wrote.
 */
export function encodeLink(key: Buffer, code: string, link: CachedLink): string {
  return signed(key, code, `${link.expiresAt}|${link.url}`);
}

/** The gone marker of `code`. */
export function encodeGone(key: Buffer, code: string): string {
  return signed(key, code, GONE_BODY);
}

export type RedirectTarget = { ok: true; location: string } | { ok: false; reason: string };

/**
 * Where a stored URL may send a browser: a URL that meets the rules it was created under
 * (checkTargetUrl: absolute http(s), no control characters or credentials, not this machine
 * in any spelling), in its serialised form. Links are checked when they are created; this is
 * for what comes back from Redis or the links service, in case of a leaked signing key or an
 * entry stored before today's rules.
 */
export function redirectTarget(url: string): RedirectTarget {
  const check = checkTargetUrl(url);
  return check.ok
    ? { ok: true, location: new URL(url).href }
    : { ok: false, reason: check.message };
}

/**
 * A value under `link:{code}` that the links service did not write for this code (unsigned,
 * or signed for another), or that names a target no redirect may send a browser to.
 */
export class RefusedEntry {
  constructor(readonly reason: string) {}
}

/**
 * Reads the stored value of `code`, signed with any of `keys` (one, or while the secret is
 * rotated the current one's and the previous one's): a link, GONE, null for no entry or an
 * unreadable one, or a RefusedEntry for a forged one or a link to anything but an http(s) URL.
 */
export function decodeLink(
  keys: Buffer | readonly Buffer[],
  code: string,
  value: string | null,
): CacheEntry | RefusedEntry {
  if (value === null) return null;
  const body = value.slice(MAC_LENGTH + 1);
  const mac = value.slice(0, MAC_LENGTH);
  if (
    value.charAt(MAC_LENGTH) !== '|' ||
    ![keys].flat().some((key) => sameText(mac, entryMac(key, code, body)))
  ) {
    return new RefusedEntry('not signed for this code by the links service');
  }
  if (body === GONE_BODY) return GONE;
  const separator = body.indexOf('|');
  if (separator <= 0) return null;
  const expiresAt = Number(body.slice(0, separator));
  const url = body.slice(separator + 1);
  if (!Number.isSafeInteger(expiresAt) || url === '') return null;
  const target = redirectTarget(url);
  return target.ok ? { url, expiresAt } : new RefusedEntry(target.reason);
}

/** Equal texts, compared in constant time (a MAC is never compared with ===). */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
