import { GONE, LEASE_MS, type LinkCache } from '@shortener/link-cache';
import type { InternalClient } from '@shortener/chassis';
import { internalApi, type ResolvedLink } from '@shortener/contracts';
import { destination, liveRules, type Destination, type LiveRules } from './link-rules';
import type { MissAllowance } from './miss-budget';

/** A live link as this instance redirects to it. */
export interface LiveLink extends Destination {
  expiresAt: number;
  /** The code its visits are counted under, for a link kept under another key (branded). */
  urlId?: string;
  /** Absent for a plain link. */
  rules?: LiveRules;
}

/**
 * A remembered answer: until when it may be given, and from when a request for it also looks
 * it up again in the background (a live link, in the last quarter of its time; else `until`);
 * `since`: when the lookup that found it began.
 */
type LocalEntry = { link: LiveLink | null; until: number; refreshAt: number; since: number };

/** A lookup in progress, and when it began. */
type PendingLookup = { answer: Promise<Resolution>; since: number };

/** The part of its time in memory after which a link asked for is looked up again. */
const REFRESH_AFTER = 0.75;

export class LinksUnavailableError extends Error {}

/** The answer to a client whose miss budget is spent, for a code only the links service knows. */
export const TOO_MANY_MISSES = 'too many misses';
export type Resolution = LiveLink | null | typeof TOO_MANY_MISSES;

const UNLIMITED: MissAllowance = { take: () => true, refund: () => undefined };

interface ResolverOptions {
  ttlMs: number;
  negativeTtlMs: number;
  maxEntries: number;
  /**
   * After invalidations may have been missed (the cache's broadcast reconnected after an
   * outage), how long the cache is passed over for the links service: what it holds may be
   * a link deleted while it was away (see REDIS_RECONNECT_GRACE_MS).
   */
  reconnectGraceMs?: number;
  /** Told of a stored URL no redirect may send a browser to (it is answered as not found). */
  onRefused?: (code: string, reason: string) => void;
}

/**
 * Finds where a code points: this process's memory first, then the shared link cache, then
 * the links service (which refills the cache). Codes not found are remembered briefly, so
 * a flood of unknown codes does not reach Redis or the links service; a client's misses are
 * also limited by its allowance, taken only before asking the links service.
 */
export class LinkResolver {
  /**
   * Bounded, oldest first out. A Map, not lru-cache: peek() is on every redirect, where a Map's
   * hit is cheaper (bench/redirect-caches.mjs); evictions, lru-cache's strength, are rare.
   */
  private readonly local = new Map<string, LocalEntry>();
  private readonly pending = new Map<string, PendingLookup>();
  /** Invalidations so far: an answer looked up across one is given but not remembered. */
  private invalidations = 0;
  /** Until when lookups skip the cache (see ResolverOptions.reconnectGraceMs). */
  private cacheDistrustedUntil = 0;
  /**
   * The newest version heard of per code (a change's broadcast, the links service's answer),
   * so that an older entry replayed into the cache is refused; kept for LEASE_MS, after which
   * every entry written before it has passed its lease anyway. Bounded like `local`.
   */
  private readonly versions = new Map<string, { version: number; until: number }>();

  constructor(
    private readonly cache: LinkCache,
    private readonly links: InternalClient,
    private readonly options: ResolverOptions,
  ) {}

  /**
   * The answer from memory, without waiting: a link, null for known-missing, or undefined
   * when memory does not know and resolve() must be awaited. A link asked for late in its
   * time in memory is looked up again meanwhile, so a link in steady demand never makes a
   * request wait for Redis; it is still never answered from memory past its time.
   */
  peek(code: string, now: number): LiveLink | null | undefined {
    const entry = this.local.get(code);
    if (entry === undefined) return undefined;
    if (entry.refreshAt <= now) {
      if (entry.until <= now) {
        this.local.delete(code);
        return undefined;
      }
      this.refresh(code, entry, now);
    }
    return entry.link;
  }

  resolve(
    code: string,
    allowance: MissAllowance = UNLIMITED,
    now = Date.now(),
  ): Promise<Resolution> {
    // Concurrent requests for one uncached code share a single lookup. One refused for its
    // client's spent budget is no answer for the others: they look up with their own. A
    // lookup begun longer ago than an answer may be kept in memory is not shared: on a
    // starved machine it may have read a link since deleted, and memory would not give that
    // answer any more either.
    const shared = this.pending.get(code);
    if (shared && now - shared.since < this.options.ttlMs) {
      return shared.answer.then((found) =>
        found === TOO_MANY_MISSES ? this.resolve(code, allowance) : found,
      );
    }
    return this.lookUpShared(code, allowance, now);
  }

  /**
   * Drops one code, or everything when invalidations may have been missed; then the cache
   * itself is passed over for a while too, as it may have missed deletions as well.
   */
  forget(code: string | null, now = Date.now()): void {
    this.invalidations++;
    if (code !== null) {
      this.local.delete(code);
      return;
    }
    this.local.clear();
    this.cacheDistrustedUntil = now + (this.options.reconnectGraceMs ?? 0);
  }

  /** A link's version from a change on: cache entries of older versions are refused. */
  noteVersion(code: string, version: number, now = Date.now()): void {
    const known = this.versions.get(code);
    const newest = known && known.until > now ? Math.max(known.version, version) : version;
    this.versions.delete(code);
    if (this.versions.size >= this.options.maxEntries) {
      const oldest = this.versions.keys().next();
      if (!oldest.done) this.versions.delete(oldest.value);
    }
    this.versions.set(code, { version: newest, until: now + LEASE_MS });
  }

  private minVersion(code: string, now: number): number {
    const known = this.versions.get(code);
    if (known === undefined) return 0;
    if (known.until > now) return known.version;
    this.versions.delete(code);
    return 0;
  }

  get size(): number {
    return this.local.size;
  }

  /**
   * Looks a remembered link up again, once (a failure leaves the entry to end at its time):
   * the links service is asked only if the link has left the cache, as for any lookup of a
   * link known to exist, so no miss budget is spent.
   */
  private refresh(code: string, entry: LocalEntry, now: number): void {
    entry.refreshAt = entry.until;
    const shared = this.pending.get(code);
    if (shared === undefined || now - shared.since >= this.options.ttlMs) {
      this.lookUpShared(code, UNLIMITED, now).catch(() => undefined);
    }
  }

  /** A lookup that requests for the same code arriving meanwhile share (see resolve). */
  private lookUpShared(code: string, allowance: MissAllowance, now: number): Promise<Resolution> {
    const lookup: PendingLookup = {
      since: now,
      answer: this.lookUp(code, allowance, now).finally(() => {
        // A later lookup of the same code may have taken its place meanwhile.
        if (this.pending.get(code) === lookup) this.pending.delete(code);
      }),
    };
    this.pending.set(code, lookup);
    return lookup.answer;
  }

  private async lookUp(code: string, allowance: MissAllowance, now: number): Promise<Resolution> {
    const invalidations = this.invalidations;
    let entry: Awaited<ReturnType<LinkCache['get']>> = null;
    try {
      if (now >= this.cacheDistrustedUntil) {
        entry = await this.cache.get(code, this.minVersion(code, now));
      }
    } catch {
      // Redis is away: the links service is the system of record and answers instead.
    }
    let found: ResolvedLink | null;
    if (entry === GONE) found = null;
    else if (entry !== null && (entry.leaseUntil ?? Infinity) > now) found = entry;
    else {
      // Only here may a lookup cost the database something: here the budget is spent.
      if (!allowance.take()) return TOO_MANY_MISSES;
      try {
        found = await this.fromLinksService(code);
      } catch (error) {
        allowance.refund();
        // An entry past its lease is still the newest this instance knows of: with the links
        // service away, it is served rather than nothing.
        if (entry === null || !(error instanceof LinksUnavailableError)) throw error;
        found = entry;
      }
      if (found) allowance.refund();
      if (found?.version !== undefined) this.noteVersion(code, found.version, now);
    }

    const link = found && found.expiresAt > now ? this.live(code, found) : null;
    // A link deleted while it was looked up may have been read before its deletion.
    if (this.invalidations === invalidations) this.remember(code, link, now);
    return link;
  }

  /** Checked once per lookup, whichever store it came from; the answer is then remembered. */
  private live(code: string, found: ResolvedLink): LiveLink | null {
    const target = destination(found.url);
    const rules = liveRules(found.rules);
    if (typeof target === 'string' || typeof rules === 'string') {
      this.options.onRefused?.(code, typeof target === 'string' ? target : (rules as string));
      return null;
    }
    const link: LiveLink = { ...target, expiresAt: found.expiresAt };
    if (found.urlId !== undefined) link.urlId = found.urlId;
    if (rules !== undefined) link.rules = rules;
    return link;
  }

  /**
   * A code of the main origin, or a branded link's key (`{host}/{slug}`, see brandedKey),
   * which the links service is asked for as the slug on that host.
   */
  private async fromLinksService(key: string): Promise<ResolvedLink | null> {
    const slash = key.indexOf('/');
    const input =
      slash === -1
        ? { params: { code: key } }
        : { params: { code: key.slice(slash + 1) }, query: { host: key.slice(0, slash) } };
    let response;
    try {
      // An unexpected status or a malformed answer is an error here, like no answer at all.
      response = await this.links.call(internalApi.resolveLink, input);
    } catch (error) {
      throw new LinksUnavailableError((error as Error).message);
    }
    return response.status === 404 ? null : response.body;
  }

  private remember(code: string, link: LiveLink | null, now: number): void {
    const ttl = link ? this.options.ttlMs : this.options.negativeTtlMs;
    if (ttl === 0) return;
    // A slow lookup ending after a later one: the later one's answer is the newer.
    const current = this.local.get(code);
    if (current !== undefined && current.since > now) return;
    // Looked up again, it goes to the back: the front is what was looked up longest ago.
    this.local.delete(code);
    if (this.local.size >= this.options.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.local.keys().next();
      if (!oldest.done) this.local.delete(oldest.value);
    }
    const until = link ? Math.min(now + ttl, link.expiresAt) : now + ttl;
    const refreshAt = link ? now + ttl * REFRESH_AFTER : until;
    this.local.set(code, { link, until, refreshAt: Math.min(refreshAt, until), since: now });
  }
}
