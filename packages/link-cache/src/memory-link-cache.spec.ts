import { GONE } from './link-cache';
import { MemoryLinkCache } from './memory-link-cache';

describe('MemoryLinkCache', () => {
  it('keeps a link until it expires, and never stores an expired one', async () => {
    const cache = new MemoryLinkCache();
    const link = { url: 'https://example.com/', expiresAt: Date.now() + 60_000 };
    await cache.set('abcdefg', link);
    await cache.set('expired', { url: 'https://example.com/', expiresAt: Date.now() - 1 });
    expect(await cache.get('abcdefg')).toEqual(link);
    expect(await cache.get('expired')).toBeNull();
  });

  it('marks a deleted link gone, refuses to refill it, and tells subscribers', async () => {
    const cache = new MemoryLinkCache();
    const link = { url: 'https://example.com/', expiresAt: Date.now() + 60_000 };
    const heard: (string | null)[] = [];
    const unsubscribe = await cache.subscribe((code) => heard.push(code));
    await cache.set('abcdefg', link);
    await cache.delete('abcdefg');
    await cache.refill('abcdefg', link);
    expect(await cache.get('abcdefg')).toBe(GONE);
    expect(heard).toEqual(['abcdefg']);
    await unsubscribe();
    await cache.delete('abcdefg');
    expect(heard).toEqual(['abcdefg']);
  });
});
