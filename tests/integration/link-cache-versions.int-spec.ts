import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { brandedKey, GONE, LEASE_MS, linkKey, RedisLinkCache } from '@shortener/link-cache';
import { testServers, waitFor } from '@shortener/testkit';

// The link cache's versions on real Redis (issue 37, item 6): writes that arrive out of order
// never put an older version over a newer one, a reader asks for nothing older than it knows
// of, and the broadcast carries each change's version, signed.

describe('the link cache with versions, on Redis', () => {
  const secret = `link-cache-versions-${randomUUID()}`;
  let redis: Redis;
  let cache: RedisLinkCache;
  const code = (): string => randomUUID().replace(/-/g, '').slice(0, 7);
  const link = (version: number, url = `https://example.com/v${version}`) => ({
    url,
    expiresAt: Date.now() + 3_600_000,
    version,
  });

  beforeAll(() => {
    redis = new Redis(testServers.redisUrl);
    cache = new RedisLinkCache(redis, { secret });
  });

  afterAll(() => {
    redis?.disconnect();
  });

  it('keeps a newer gone marker over a refill read before the delete', async () => {
    const at = code();
    await cache.set(at, link(5));
    await cache.delete(at, 6);
    await cache.refill(at, link(5));
    expect(await cache.get(at)).toBe(GONE);
  });

  it('keeps the later of two edits whatever order their writes arrive in', async () => {
    const at = code();
    await cache.replace(at, link(8, 'https://example.com/second'));
    await cache.replace(at, link(7, 'https://example.com/first'));
    expect(await cache.get(at)).toMatchObject({ url: 'https://example.com/second', version: 8 });
  });

  it('keeps a newer entry with rules over an older plain refill, and the reverse', async () => {
    const at = brandedKey('go.example.com', code());
    const rules = { ios: 'https://apps.example.com/app', maxVisits: 3 };
    await cache.replace(at, { ...link(9), urlId: 'Abc1234', rules });
    await cache.refill(at, link(8));
    expect(await cache.get(at)).toMatchObject({ version: 9, urlId: 'Abc1234', rules });
    await cache.replace(at, link(10));
    await cache.refill(at, { ...link(9), urlId: 'Abc1234', rules });
    const read = await cache.get(at);
    expect(read).toMatchObject({ version: 10 });
    expect(read).not.toHaveProperty('rules');
  });

  it('renews the lease of an entry refilled at the same version, and says until when', async () => {
    const at = code();
    const before = Date.now();
    await cache.refill(at, link(3));
    const read = await cache.get(at);
    expect(read).toMatchObject({ version: 3 });
    const leaseUntil = (read as { leaseUntil: number }).leaseUntil;
    expect(leaseUntil).toBeGreaterThanOrEqual(before + LEASE_MS);
    expect(leaseUntil).toBeLessThanOrEqual(Date.now() + LEASE_MS);
  });

  it('reads an entry older than the version asked for as unknown, and leaves it', async () => {
    const at = code();
    await cache.set(at, link(4));
    expect(await cache.get(at, 5)).toBeNull();
    expect(await cache.get(at, 4)).toMatchObject({ version: 4 });
    expect(await redis.get(linkKey(at))).not.toBeNull();
  });

  it('announces each change with its version, signed; a notice signed with another key is not heard', async () => {
    const heard: Array<[string | null, number | undefined]> = [];
    const unsubscribe = await cache.subscribe((at, version) => heard.push([at, version]));
    try {
      const at = code();
      await cache.delete(at, 11);
      const forger = new RedisLinkCache(redis, { secret: `${secret}-not` });
      await forger.delete(at, 99);
      // A last change of our own, so that everything before it has been heard.
      const last = code();
      await cache.replace(last, link(1));
      await waitFor(() => heard.length >= 5, { what: 'the messages', timeoutMs: 5000 });
      expect(heard).toEqual([
        [at, undefined],
        [at, 11],
        // The forger's removal reads as one (the old form is not signed), its version not at all.
        [at, undefined],
        [last, undefined],
        [last, 1],
      ]);
    } finally {
      await unsubscribe();
    }
  });
});
