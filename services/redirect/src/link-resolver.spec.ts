import { InternalClient, type InternalResponse } from '@shortener/chassis';
import {
  GONE,
  LEASE_MS,
  type CacheEntry,
  type CachedLink,
  type LinkCache,
} from '@shortener/link-cache';
import {
  LinkResolver,
  LinksUnavailableError,
  TOO_MANY_MISSES,
  type Resolution,
} from './link-resolver';
import { MissBudget } from './miss-budget';

class MemoryCache implements LinkCache {
  entries = new Map<string, CacheEntry>();
  gets = 0;
  /** The minVersion of each get, in order. */
  minVersions: Array<number | undefined> = [];
  failing = false;
  get(code: string, minVersion?: number): Promise<CacheEntry> {
    this.gets += 1;
    this.minVersions.push(minVersion);
    if (this.failing) return Promise.reject(new Error('redis away'));
    return Promise.resolve(this.entries.get(code) ?? null);
  }
  set(code: string, link: CachedLink): Promise<void> {
    this.entries.set(code, link);
    return Promise.resolve();
  }
  refill = this.set;
  replace = this.set;
  delete(code: string): Promise<void> {
    this.entries.set(code, GONE);
    return Promise.resolve();
  }
  subscribe(): Promise<() => Promise<void>> {
    return Promise.resolve(() => Promise.resolve());
  }
}

/** A real links client whose exchanges are answered by `answer`, counting them. */
function linksExchanging(
  answer: (path: string) => InternalResponse | Error,
): InternalClient & { calls: number } {
  const client = Object.assign(new InternalClient('links', 'http://links.invalid', 'unused'), {
    calls: 0,
  });
  jest.spyOn(client, 'request').mockImplementation((_method, path) => {
    client.calls += 1;
    const answered = answer(path);
    return answered instanceof Error ? Promise.reject(answered) : Promise.resolve(answered);
  });
  return client;
}

function linksAnswering(status: number, body?: unknown): InternalClient & { calls: number } {
  return linksExchanging(() =>
    status === 0 ? new Error('connect ECONNREFUSED') : { status, body },
  );
}

const options = { ttlMs: 1000, negativeTtlMs: 1000, maxEntries: 3 };

/** The Location a resolution redirects to, if any. */
const locationOf = (resolution: Resolution): string | undefined =>
  resolution && resolution !== TOO_MANY_MISSES ? resolution.location : undefined;
const future = Date.now() + 60_000;

describe('LinkResolver', () => {
  it('passes the cache over for the grace after missed invalidations: it may hold a link deleted meanwhile', async () => {
    const cache = new MemoryCache();
    // What Redis kept through its outage, for a link the links service deleted meanwhile.
    cache.entries.set('abcdefg', { url: 'https://example.com/deleted', expiresAt: future });
    const links = linksAnswering(404, { message: 'Not found' });
    const resolver = new LinkResolver(cache, links, { ...options, reconnectGraceMs: 15_000 });
    resolver.forget(null, Date.now());
    expect(await resolver.resolve('abcdefg')).toBeNull();
    expect(cache.gets).toBe(0);
    expect(links.calls).toBe(1);
    // Once the grace is over (the links service has settled its removals), the cache again.
    resolver.forget(null, Date.now() - 15_001);
    expect(locationOf(await resolver.resolve('abcdefg'))).toBe('https://example.com/deleted');
    expect(cache.gets).toBe(1);
  });

  it('asks the cache for nothing older than the newest version it heard of, for a while', async () => {
    const cache = new MemoryCache();
    cache.entries.set('abcdefg', { url: 'https://example.com/a', expiresAt: future, version: 9 });
    const links = linksAnswering(404, { message: 'Not found' });
    const resolver = new LinkResolver(cache, links, { ...options, ttlMs: 0, negativeTtlMs: 0 });
    await resolver.resolve('abcdefg');
    resolver.noteVersion('abcdefg', 12);
    resolver.noteVersion('abcdefg', 11);
    await resolver.resolve('abcdefg');
    // Heard of longer ago than a lease: every entry written before it has passed its lease.
    resolver.noteVersion('hijklmn', 5, Date.now() - LEASE_MS - 1);
    await resolver.resolve('hijklmn');
    expect(cache.minVersions).toEqual([0, 12, 0]);
  });

  it("remembers the version the links service answers with, as the cache's floor", async () => {
    const cache = new MemoryCache();
    const links = linksAnswering(200, {
      url: 'https://example.com/a',
      expiresAt: future,
      version: 21,
    });
    const resolver = new LinkResolver(cache, links, { ...options, ttlMs: 0 });
    await resolver.resolve('abcdefg');
    await resolver.resolve('abcdefg');
    expect(cache.minVersions).toEqual([0, 21]);
  });

  it('asks the links service again for an entry past its lease, and takes its answer', async () => {
    const cache = new MemoryCache();
    cache.entries.set('abcdefg', {
      url: 'https://example.com/replayed',
      expiresAt: future,
      version: 3,
      leaseUntil: Date.now() - 1,
    });
    const links = linksAnswering(404, { message: 'Not found' });
    const resolver = new LinkResolver(cache, links, options);
    expect(await resolver.resolve('abcdefg')).toBeNull();
    expect(links.calls).toBe(1);
  });

  it('serves an entry past its lease while the links service cannot say', async () => {
    const cache = new MemoryCache();
    cache.entries.set('abcdefg', {
      url: 'https://example.com/a',
      expiresAt: future,
      version: 3,
      leaseUntil: Date.now() - 1,
    });
    const resolver = new LinkResolver(cache, linksAnswering(0), options);
    expect(locationOf(await resolver.resolve('abcdefg'))).toBe('https://example.com/a');
  });

  it('answers from memory after the first lookup, serialising the Location once', async () => {
    const cache = new MemoryCache();
    cache.entries.set('abcdefg', { url: 'https://例え.jp/パス', expiresAt: future });
    const resolver = new LinkResolver(cache, linksAnswering(500), options);
    expect(resolver.peek('abcdefg', Date.now())).toBeUndefined();
    const link = await resolver.resolve('abcdefg');
    expect(locationOf(link)).toBe('https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9');
    expect(resolver.peek('abcdefg', Date.now())).toEqual(link);
    expect(resolver.peek('abcdefg', Date.now() + 1001)).toBeUndefined();
    expect(cache.gets).toBe(1);
  });

  it('looks a link asked for late in its time in memory up again meanwhile, never making a request wait', async () => {
    const cache = new MemoryCache();
    cache.entries.set('abcdefg', { url: 'https://example.com/a', expiresAt: future });
    const resolver = new LinkResolver(cache, linksAnswering(500), options);
    const start = Date.now();
    const first = await resolver.resolve('abcdefg');
    // Half way: answered from memory, nothing looked up.
    expect(resolver.peek('abcdefg', start + 500)).toEqual(first);
    expect(cache.gets).toBe(1);
    // In its last quarter: still answered from memory, and looked up again once meanwhile.
    cache.entries.set('abcdefg', { url: 'https://example.com/b', expiresAt: future });
    expect(resolver.peek('abcdefg', start + 800)).toEqual(first);
    expect(resolver.peek('abcdefg', start + 810)).toEqual(first);
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.gets).toBe(2);
    // Past its first time in memory it is the fresh answer, with no wait for a lookup.
    expect(locationOf(resolver.peek('abcdefg', start + 1100)!)).toBe('https://example.com/b');
  });

  it('keeps a link no longer than its time in memory when looking it up again fails', async () => {
    const cache = new MemoryCache();
    cache.entries.set('abcdefg', { url: 'https://example.com/a', expiresAt: future });
    const links = linksAnswering(0);
    const resolver = new LinkResolver(cache, links, options);
    const start = Date.now();
    const first = await resolver.resolve('abcdefg');
    cache.failing = true;
    expect(resolver.peek('abcdefg', start + 800)).toEqual(first);
    await new Promise((resolve) => setImmediate(resolve));
    // One attempt (Redis, then the links service), not one per request.
    expect(resolver.peek('abcdefg', start + 900)).toEqual(first);
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.gets).toBe(2);
    expect(links.calls).toBe(1);
    expect(resolver.peek('abcdefg', start + 1001)).toBeUndefined();
  });

  it('does not look up again codes remembered as unknown', async () => {
    const cache = new MemoryCache();
    const resolver = new LinkResolver(
      cache,
      linksAnswering(404, { message: 'Url not found' }),
      options,
    );
    const start = Date.now();
    expect(await resolver.resolve('abcdefg')).toBeNull();
    expect(resolver.peek('abcdefg', start + 900)).toBeNull();
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.gets).toBe(1);
  });

  it('does not remember an answer looked up while its link was invalidated', async () => {
    const cache = new MemoryCache();
    cache.entries.set('abcdefg', { url: 'https://example.com/a', expiresAt: future });
    const resolver = new LinkResolver(cache, linksAnswering(500), options);
    const lookup = resolver.resolve('abcdefg');
    // Deleted meanwhile: its invalidation arrives before the lookup's answer.
    resolver.forget('abcdefg');
    expect(locationOf(await lookup)).toBe('https://example.com/a');
    expect(resolver.peek('abcdefg', Date.now())).toBeUndefined();
  });

  it('asks the links service on a cache miss, and when Redis is away', async () => {
    const cache = new MemoryCache();
    const links = linksAnswering(200, { url: 'https://example.com/', expiresAt: future });
    const resolver = new LinkResolver(cache, links, options);
    expect(locationOf(await resolver.resolve('abcdefg'))).toBe('https://example.com/');
    cache.failing = true;
    resolver.forget(null);
    expect(locationOf(await resolver.resolve('abcdefg'))).toBe('https://example.com/');
    expect(links.calls).toBe(2);
  });

  it('treats gone, expired and unknown links as missing, and remembers that briefly', async () => {
    const cache = new MemoryCache();
    cache.entries.set('goneaaa', GONE);
    cache.entries.set('expired', { url: 'https://example.com/', expiresAt: Date.now() - 1 });
    const links = linksAnswering(404, { message: 'Url not found' });
    const resolver = new LinkResolver(cache, links, options);
    expect(await resolver.resolve('goneaaa')).toBeNull();
    expect(await resolver.resolve('expired')).toBeNull();
    expect(await resolver.resolve('unknown')).toBeNull();
    expect(links.calls).toBe(1);
    expect(resolver.peek('unknown', Date.now())).toBeNull();
  });

  it('says so when neither Redis nor the links service can answer', async () => {
    const cache = new MemoryCache();
    cache.failing = true;
    const resolver = new LinkResolver(cache, linksAnswering(0), options);
    await expect(resolver.resolve('abcdefg')).rejects.toBeInstanceOf(LinksUnavailableError);
  });

  it.each([
    ['an expiry that is not a number', { url: 'https://example.com/', expiresAt: String(future) }],
    ['no URL', { expiresAt: future }],
    ['a URL that is not a string', { url: ['https://example.com/'], expiresAt: future }],
    ['a 404 without its message', undefined],
  ])(
    'redirects nowhere on a resolve answer with %s: unavailable, and asked again next time',
    async (_what, body) => {
      const cache = new MemoryCache();
      const links = linksAnswering(body === undefined ? 404 : 200, body ?? {});
      const resolver = new LinkResolver(cache, links, options);
      await expect(resolver.resolve('abcdefg')).rejects.toBeInstanceOf(LinksUnavailableError);
      expect(resolver.peek('abcdefg', Date.now())).toBeUndefined();
      await expect(resolver.resolve('abcdefg')).rejects.toBeInstanceOf(LinksUnavailableError);
      expect(links.calls).toBe(2);
    },
  );

  it('says so when the links service answers a status resolve does not expect', async () => {
    const resolver = new LinkResolver(new MemoryCache(), linksAnswering(500, {}), options);
    await expect(resolver.resolve('abcdefg')).rejects.toBeInstanceOf(LinksUnavailableError);
  });

  it('does not share a lookup begun longer ago than its time in memory, nor let it overwrite a later answer', async () => {
    const cache = new MemoryCache();
    cache.failing = true; // Redis away: only the links service answers
    const url = 'https://example.com/deleted-meanwhile';
    // The first lookup reads the link before its deletion, and its answer is slow to come
    // (a starved machine); the next finds it deleted.
    let answerFirst: (response: InternalResponse) => void = () => undefined;
    const links = Object.assign(new InternalClient('links', 'http://links.invalid', 'unused'), {
      calls: 0,
    });
    jest.spyOn(links, 'request').mockImplementation(() => {
      links.calls += 1;
      if (links.calls === 1) {
        return new Promise<InternalResponse>((resolve) => (answerFirst = resolve));
      }
      return Promise.resolve({ status: 404, body: { message: 'Not found' } });
    });
    const resolver = new LinkResolver(cache, links, options);
    const began = Date.now();
    const first = resolver.resolve('abcdefg', undefined, began);
    // Within its time in memory a request shares the lookup under way...
    const sharing = resolver.resolve('abcdefg', undefined, began + options.ttlMs - 1);
    // ...but after it, a request looks up again rather than wait for an answer that old.
    expect(await resolver.resolve('abcdefg', undefined, began + options.ttlMs)).toBeNull();
    expect(links.calls).toBe(2);
    answerFirst({ status: 200, body: { url, expiresAt: future } });
    expect(locationOf(await first)).toBe(url);
    expect(locationOf(await sharing)).toBe(url);
    // Memory keeps the later answer.
    expect(resolver.peek('abcdefg', began + options.ttlMs + 1)).toBeNull();
  });

  it('shares one lookup between concurrent requests and stays within its size bound', async () => {
    const cache = new MemoryCache();
    for (const code of ['aaaaaaa', 'bbbbbbb', 'ccccccc', 'ddddddd']) {
      cache.entries.set(code, { url: `https://example.com/${code}`, expiresAt: future });
    }
    const resolver = new LinkResolver(cache, linksAnswering(500), options);
    await Promise.all([resolver.resolve('aaaaaaa'), resolver.resolve('aaaaaaa')]);
    expect(cache.gets).toBe(1);
    for (const code of ['bbbbbbb', 'ccccccc', 'ddddddd']) await resolver.resolve(code);
    expect(resolver.size).toBe(3);
    expect(resolver.peek('aaaaaaa', Date.now())).toBeUndefined();
  });

  it('refuses a stored URL that is not http(s), from any store, and says so', async () => {
    const cache = new MemoryCache();
    cache.entries.set('cached1', { url: 'javascript:alert(1)', expiresAt: future });
    const links = linksAnswering(200, { url: 'data:text/html,x', expiresAt: future });
    const refused: string[] = [];
    const resolver = new LinkResolver(cache, links, {
      ...options,
      onRefused: (code, reason) => refused.push(`${code}: ${reason}`),
    });
    expect(await resolver.resolve('cached1')).toBeNull();
    expect(await resolver.resolve('fromdb1')).toBeNull();
    expect(refused).toEqual([
      'cached1: Only http and https URLs can be shortened.',
      'fromdb1: Only http and https URLs can be shortened.',
    ]);
    expect(resolver.peek('cached1', Date.now())).toBeNull();
  });

  it("spends a client's miss budget only on lookups that reach the links service and miss", async () => {
    const cache = new MemoryCache();
    cache.entries.set('cached1', { url: 'https://example.com/c', expiresAt: future });
    const links = linksExchanging((path) =>
      path.endsWith('/indb001')
        ? { status: 200, body: { url: 'https://example.com/d', expiresAt: future } }
        : { status: 404, body: { message: 'Url not found' } },
    );
    const resolver = new LinkResolver(cache, links, {
      ...options,
      negativeTtlMs: 0,
      ttlMs: 0,
    });
    const budget = new MissBudget({ perMinute: 1, burst: 2, maxClients: 10 });
    const client = () => budget.for('192.0.2.1');
    expect(await resolver.resolve('unknwn1', client())).toBeNull();
    expect(locationOf(await resolver.resolve('indb001', client()))).toBe('https://example.com/d');
    expect(await resolver.resolve('unknwn2', client())).toBeNull();
    expect(links.calls).toBe(3);
    // Spent: no more lookups in the links service, but the cache still answers.
    expect(await resolver.resolve('unknwn3', client())).toBe(TOO_MANY_MISSES);
    expect(await resolver.resolve('indb001', client())).toBe(TOO_MANY_MISSES);
    expect(links.calls).toBe(3);
    expect(locationOf(await resolver.resolve('cached1', client()))).toBe('https://example.com/c');
    // Another client joining the spent one's lookup of a code gets its own answer.
    const [spent, other] = await Promise.all([
      resolver.resolve('indb001', client()),
      resolver.resolve('indb001', budget.for('192.0.2.2')),
    ]);
    expect(spent).toBe(TOO_MANY_MISSES);
    expect(locationOf(other)).toBe('https://example.com/d');
  });
});
