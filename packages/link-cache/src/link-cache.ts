import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { checkTargetUrl } from './target-url';

/** What the redirect path needs to know about a live link. */
export interface CachedLink {
  url: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /**
   * The link's version in the system of record (links.links.version: raised by every edit,
   * delete and restore). Written into each entry, so an older entry replayed into the cache
   * is told from the current one.
   */
  version?: number;
  /**
   * Read from the cache: until when the entry may be used without asking the links service
   * again (LEASE_MS after it was written). Undefined for the in-process cache.
   */
  leaseUntil?: number;
  /**
   * The link's code (its urlID: visits are counted under it) when the entry is kept under
   * another key: a branded domain's link, kept under `{host}/{slug}` (see brandedKey).
   */
  urlId?: string;
  /** Decided in the redirect from the entry alone; absent for a plain link. */
  rules?: LinkRules;
}

/**
 * A link's rules as the redirect reads them. Destinations obey the same rules as `url`;
 * `geo` maps ISO 3166-1 alpha-2 countries (upper case) to destinations; `passwordHash` is
 * the only form in which a link's password is ever kept.
 */
export interface LinkRules {
  ios?: string;
  android?: string;
  geo?: Readonly<Record<string, string>>;
  passwordHash?: string;
  maxVisits?: number;
}

/**
 * The cache key of a link on a branded domain: its lower-cased host (punycode, no port) and
 * its slug. Codes never hold a slash, so it cannot be taken for a main-origin code.
 */
export function brandedKey(host: string, slug: string): string {
  return `${host}/${slug}`;
}

/**
 * How long an entry is good for once written: past it, the redirect asks the links service
 * again (which writes the entry afresh). It bounds how long a redirect that has not heard of
 * a newer version (one just started) can be fooled by an older entry replayed into Redis.
 */
export const LEASE_MS = 15 * 60_000;

/** A link deleted moments ago: known gone, so nobody asks the system of record again. */
export const GONE = 'gone';
export type CacheEntry = CachedLink | typeof GONE | null;

/**
 * The port the links and redirect services use for the shared link cache. The distributed
 * adapter is Redis; the embedded mode has an in-process one. Business code never knows which.
 */
export interface LinkCache {
  /**
   * The link, GONE when it was just deleted, or null when the cache does not know. An entry
   * of a version below `minVersion` (one the caller knows to be outdated) is not known.
   */
  get(code: string, minVersion?: number): Promise<CacheEntry>;
  /** Stores a new link until it expires; an already expired link is not stored. */
  set(code: string, link: CachedLink): Promise<void>;
  /**
   * Stores a link read back from the system of record after a cache miss, unless the cache
   * holds a newer version (a refill must never resurrect a deleted link nor undo an edit).
   */
  refill(code: string, link: CachedLink): Promise<void>;
  /**
   * Marks a link gone (at `version`, that of its deletion) and tells every redirect instance
   * to drop its local copy at once.
   */
  delete(code: string, version: number): Promise<void>;
  /**
   * Stores a link's new state (edited, or restored after a delete) over whatever the cache
   * holds, a gone marker included, and tells every redirect instance to drop its local copy
   * at once, on the broadcast deletions use (as a change, not a removal).
   */
  replace(code: string, link: CachedLink): Promise<void>;
  /**
   * Calls `listener` with each invalidated code (and, when the writer announced it, the
   * link's version from then on), and with null when invalidations may have been missed (a
   * reconnect): the listener should then drop everything it holds.
   */
  subscribe(
    listener: (code: string | null, version?: number) => void,
  ): Promise<() => Promise<void>>;
}

/** A deletion's version: the link is gone for good (purged), no version of it can follow. */
export const PURGED_VERSION = Number.MAX_SAFE_INTEGER;

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

/**
 * A link's version from a change on, announced on the invalidation broadcast beside the
 * change itself: "version:<version>:<mac>:<code>", signed like the entries. A reader that
 * does not know this form takes it for the removal of a code that does not exist.
 */
const VERSION_PREFIX = 'version:';

export function encodeVersionNotice(key: KeyObject, code: string, version: number): string {
  return `${VERSION_PREFIX}${version}:${entryMac(key, code, `version ${version}`)}:${code}`;
}

/** Whether a broadcast message is in the version notice's form (signed or not). */
export function isVersionNotice(message: string): boolean {
  return message.startsWith(VERSION_PREFIX);
}

/** The code and version of a notice signed with one of `keys`; null for anything else. */
export function decodeVersionNotice(
  keys: readonly KeyObject[],
  message: string,
): { code: string; version: number } | null {
  if (!message.startsWith(VERSION_PREFIX)) return null;
  const [version, mac, code] = message.slice(VERSION_PREFIX.length).split(':');
  if (version === undefined || mac === undefined || code === undefined) return null;
  const parsed = Number(version);
  if (!/^\d{1,16}$/.test(version) || !Number.isSafeInteger(parsed)) return null;
  if (!keys.some((key) => sameText(mac, entryMac(key, code, `version ${version}`)))) return null;
  return { code, version: parsed };
}

/** The stored value of a deleted link (kept a while so no redirect refills it), signed. */
const GONE_BODY = '!';

/**
 * The key that signs cache entries, derived from the secret the services share
 * (INTERNAL_API_SECRET) for this one use, so an entry's signature is never an internal token.
 * A KeyObject, not the bytes: on Node 24 an HMAC keyed with a Buffer costs 14 µs (2.6 µs with
 * a KeyObject), and every redirect read from Redis checks a MAC.
 */
export function linkCacheKey(secret: string): KeyObject {
  return createSecretKey(
    createHmac('sha256', secret).update('shortener link cache entries v1').digest(),
  );
}

/** 128 bits of HMAC-SHA-256 over the code and the entry: base64url, 22 characters. */
const MAC_LENGTH = 22;

function entryMac(key: KeyObject, code: string, body: string): string {
  return createHmac('sha256', key)
    .update(`${code}|${body}`)
    .digest('base64url')
    .slice(0, MAC_LENGTH);
}

/** `body` signed for `code`: "<mac>|<body>". */
function signed(key: KeyObject, code: string, body: string): string {
  return `${entryMac(key, code, body)}|${body}`;
}

/**
 * "<mac>|v<version>:<leaseUntil>|<expiresAt>|<url>", or "<mac>|!v<version>:<leaseUntil>" when
 * deleted: the MAC over code and rest refuses forged or copied entries, the version and lease
 * replayed older ones. Older forms read as unknown.
 *
 * A link with rules or a urlId: "<mac>|r<version>:<leaseUntil>|<expiresAt>|<JSON>", the JSON
 * `{"url","urlId"?,"rules"?}`. Its stamp letter is not the plain form's, so a release that does
 * not know rules reads it as unknown (asks the links service) rather than as a plain link.
 */
export function encodeLink(
  key: KeyObject,
  code: string,
  link: CachedLink & { version: number },
  leaseUntil: number,
): string {
  const { url, urlId, rules } = link;
  if (urlId === undefined && rules === undefined) {
    return signed(key, code, `v${link.version}:${leaseUntil}|${link.expiresAt}|${url}`);
  }
  const extras = JSON.stringify({ url, urlId, rules });
  return signed(key, code, `${RULED}${link.version}:${leaseUntil}|${link.expiresAt}|${extras}`);
}

/** The stamp letter of an entry with rules or a urlId (a plain one's is "v"). */
const RULED = 'r';

/** The gone marker of `code`, deleted at `version`. */
export function encodeGone(
  key: KeyObject,
  code: string,
  version: number,
  leaseUntil: number,
): string {
  return signed(key, code, `${GONE_BODY}v${version}:${leaseUntil}`);
}

/** A versioned entry as read: a link or a gone marker, with its version and lease. */
export interface VersionedEntry {
  entry: CachedLink | typeof GONE;
  version: number;
  leaseUntil: number;
}

/** "v<version>:<leaseUntil>" as entries carry it ("r" for an entry with rules). */
function readStamp(stamp: string, letter = 'v'): { version: number; leaseUntil: number } | null {
  const match = /^(\d{1,16}):(\d{1,16})$/.exec(stamp.slice(1));
  if (stamp.charAt(0) !== letter || !match) return null;
  const version = Number(match[1]);
  const leaseUntil = Number(match[2]);
  return Number.isSafeInteger(version) && Number.isSafeInteger(leaseUntil)
    ? { version, leaseUntil }
    : null;
}

export type RedirectTarget = { ok: true; location: string } | { ok: false; reason: string };

/**
 * Where a stored URL may send a browser, re-checked by checkTargetUrl's rules on what comes
 * back from Redis or the links service (a leaked key, an entry stored under older rules).
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
 * rotated the current one's and the previous one's): a link or GONE with its version and
 * lease, null for no entry or an unreadable or unversioned one, or a RefusedEntry for a forged
 * one or a link to anything but an http(s) URL.
 */
export function decodeVersioned(
  keys: KeyObject | readonly KeyObject[],
  code: string,
  value: string | null,
): VersionedEntry | null | RefusedEntry {
  if (value === null) return null;
  const body = value.slice(MAC_LENGTH + 1);
  const mac = value.slice(0, MAC_LENGTH);
  if (
    value.charAt(MAC_LENGTH) !== '|' ||
    ![keys].flat().some((key) => sameText(mac, entryMac(key, code, body)))
  ) {
    return new RefusedEntry('not signed for this code by the links service');
  }
  if (body.startsWith(GONE_BODY)) {
    const stamp = readStamp(body.slice(GONE_BODY.length));
    return stamp && { entry: GONE, ...stamp };
  }
  const [stampText = '', expiresText = ''] = body.split('|', 2);
  const ruled = stampText.charAt(0) === RULED;
  const stamp = readStamp(stampText, ruled ? RULED : 'v');
  const expiresAt = Number(expiresText);
  const rest = body.slice(stampText.length + expiresText.length + 2);
  if (!stamp || !/^\d{1,16}$/.test(expiresText) || rest === '') return null;
  if (ruled) {
    const link = readRuled(rest);
    if (link === null || link instanceof RefusedEntry) return link;
    return { entry: { ...link, expiresAt, version: stamp.version }, ...stamp };
  }
  const target = redirectTarget(rest);
  if (!target.ok) return new RefusedEntry(target.reason);
  return { entry: { url: rest, expiresAt, version: stamp.version }, ...stamp };
}

/**
 * The JSON part of an entry with rules: null when it is not the form (unknown), a
 * RefusedEntry when a destination, the main one or a rule's, is not one to send a browser to.
 */
function readRuled(
  json: string,
): Pick<CachedLink, 'url' | 'urlId' | 'rules'> | null | RefusedEntry {
  let read: unknown;
  try {
    read = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof read !== 'object' || read === null) return null;
  const { url, urlId, rules } = read as Record<string, unknown>;
  if (typeof url !== 'string' || (urlId !== undefined && typeof urlId !== 'string')) return null;
  const link: Pick<CachedLink, 'url' | 'urlId' | 'rules'> = { url };
  if (urlId !== undefined) link.urlId = urlId;
  if (rules !== undefined) {
    const checked = readRules(rules);
    if (checked === null) return null;
    link.rules = checked;
  }
  for (const destination of [url, ...ruleUrls(link.rules)]) {
    const target = redirectTarget(destination);
    if (!target.ok) return new RefusedEntry(target.reason);
  }
  return link;
}

/** Every destination a link's rules may send to. */
export function ruleUrls(rules: LinkRules | undefined): string[] {
  if (rules === undefined) return [];
  const urls = Object.values(rules.geo ?? {});
  if (rules.ios !== undefined) urls.push(rules.ios);
  if (rules.android !== undefined) urls.push(rules.android);
  return urls;
}

/** Rules in LinkRules' shape, with only its fields; null for anything else. */
function readRules(value: unknown): LinkRules | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { ios, android, geo, passwordHash, maxVisits, ...others } = value as Record<
    string,
    unknown
  >;
  if (Object.keys(others).length > 0) return null;
  const rules: LinkRules = {};
  for (const [name, field] of [
    ['ios', ios],
    ['android', android],
    ['passwordHash', passwordHash],
  ] as const) {
    if (field === undefined) continue;
    if (typeof field !== 'string') return null;
    rules[name] = field;
  }
  if (maxVisits !== undefined) {
    if (!Number.isSafeInteger(maxVisits) || (maxVisits as number) < 1) return null;
    rules.maxVisits = maxVisits as number;
  }
  if (geo !== undefined) {
    if (typeof geo !== 'object' || geo === null || Array.isArray(geo)) return null;
    const entries = Object.entries(geo as Record<string, unknown>);
    if (!entries.every(([country, url]) => /^[A-Z]{2}$/.test(country) && typeof url === 'string')) {
      return null;
    }
    rules.geo = Object.fromEntries(entries) as Record<string, string>;
  }
  return rules;
}

/** decodeVersioned without the stamp: a link, GONE, null or a RefusedEntry. */
export function decodeLink(
  keys: KeyObject | readonly KeyObject[],
  code: string,
  value: string | null,
): CacheEntry | RefusedEntry {
  const read = decodeVersioned(keys, code, value);
  return read === null || read instanceof RefusedEntry ? read : read.entry;
}

/** Equal texts, compared in constant time (a MAC is never compared with ===). */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
