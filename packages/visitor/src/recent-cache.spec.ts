import { RecentCache } from './recent-cache';

describe('RecentCache', () => {
  it('makes an answer once while it is kept, and drops the least recently used when full', () => {
    const made: string[] = [];
    const upper = (key: string) => {
      made.push(key);
      return key.toUpperCase();
    };
    const cache = new RecentCache<string>(2, upper);
    expect(cache.get('a')).toBe('A');
    expect(cache.get('b')).toBe('B');
    expect(cache.get('a')).toBe('A'); // a hit: `a` is now the most recent
    expect(cache.get('c')).toBe('C'); // full: `b` goes, not `a`
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBe('A');
    expect(cache.get('b')).toBe('B');
    expect(made).toEqual(['a', 'b', 'c', 'b']);
  });

  it('keeps nothing when its size is 0', () => {
    let calls = 0;
    const cache = new RecentCache<number>(0, () => ++calls);
    cache.get('x');
    cache.get('x');
    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
  });
});
