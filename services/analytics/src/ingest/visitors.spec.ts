import { createSecretKey } from 'node:crypto';
import { VisitorKeys, visitorHash, type VisitorKeyStore } from './visitors';

class MemoryKeyStore implements VisitorKeyStore {
  readonly keys = new Map<string, Buffer>();
  queries = 0;

  keysFor(offered: ReadonlyMap<string, Buffer>): Promise<Map<string, Buffer>> {
    this.queries += 1;
    for (const [day, key] of offered) if (!this.keys.has(day)) this.keys.set(day, key);
    return Promise.resolve(new Map([...offered.keys()].map((day) => [day, this.keys.get(day)!])));
  }
}

describe('visitor hashes', () => {
  it('are the same for one (IP, User-Agent) pair under one key, different otherwise', () => {
    const key = createSecretKey(Buffer.alloc(32, 1));
    const other = createSecretKey(Buffer.alloc(32, 2));
    const hash = visitorHash(key, '203.0.113.9', 'ua');
    expect(hash).toHaveLength(16);
    expect(visitorHash(key, '203.0.113.9', 'ua')).toEqual(hash);
    expect(visitorHash(key, '203.0.113.9', 'ua2')).not.toEqual(hash);
    expect(visitorHash(key, '203.0.113.10', 'ua')).not.toEqual(hash);
    // The separator keeps ("a", "bc") and ("ab", "c") apart.
    expect(visitorHash(key, 'a', 'bc')).not.toEqual(visitorHash(key, 'ab', 'c'));
    expect(visitorHash(other, '203.0.113.9', 'ua')).not.toEqual(hash);
  });

  it('use the stored key of a day, so two instances hash a day alike, and ask once per day', async () => {
    const store = new MemoryKeyStore();
    const first = new VisitorKeys(store);
    const second = new VisitorKeys(store);
    const today = new Date().toISOString().slice(0, 10);
    const a = await first.forDays([today]);
    const b = await second.forDays([today]);
    expect(a.get(today)!.export()).toEqual(b.get(today)!.export());
    await first.forDays([today, today]);
    expect(store.queries).toBe(2);
  });

  it('answers a key for every day asked, however old, keeping only recent ones in memory', async () => {
    const store = new MemoryKeyStore();
    const keys = new VisitorKeys(store);
    const old = '2020-01-01';
    const today = new Date().toISOString().slice(0, 10);
    const answered = await keys.forDays([old, today]);
    expect(answered.get(old)?.symmetricKeySize).toBe(32);
    expect(answered.get(today)?.symmetricKeySize).toBe(32);
    // The old day is asked of the store again; today is remembered.
    await keys.forDays([old, today]);
    expect(store.queries).toBe(2);
    expect((await keys.forDays([old])).get(old)!.export()).toEqual(answered.get(old)!.export());
  });
});
