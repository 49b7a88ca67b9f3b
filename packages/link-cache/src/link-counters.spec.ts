import { MemoryLinkCounters } from './link-counters';

describe('MemoryLinkCounters (the embedded mode)', () => {
  it('counts visits of a link', async () => {
    const counters = new MemoryLinkCounters();
    expect(await counters.visits('abc1234')).toBe(0);
    expect(await counters.countVisit('abc1234', Date.now() + 60_000)).toBe(1);
    expect(await counters.countVisit('abc1234', Date.now() + 60_000)).toBe(2);
    expect(await counters.visits('abc1234')).toBe(2);
    expect(await counters.visits('zzz9999')).toBe(0);
  });

  it('limits tries per link and client within a window, giving back the right ones', async () => {
    const counters = new MemoryLinkCounters();
    const take = () => counters.takeTry('abc1234', '192.0.2.1', 2, 60_000);
    expect(await take()).toEqual({ allowed: true });
    await counters.refundTry('abc1234', '192.0.2.1');
    expect(await take()).toEqual({ allowed: true });
    expect(await take()).toEqual({ allowed: true });
    const refused = await take();
    expect(refused.allowed).toBe(false);
    expect(!refused.allowed && refused.retryAfterMs).toBeGreaterThan(59_000);
    expect(await counters.takeTry('abc1234', '192.0.2.2', 2, 60_000)).toEqual({ allowed: true });
    expect(await counters.takeTry('xyz1234', '192.0.2.1', 2, 60_000)).toEqual({ allowed: true });
  });

  it('opens a new window once the last has passed', async () => {
    const counters = new MemoryLinkCounters();
    expect(await counters.takeTry('abc1234', 'c', 1, 20)).toEqual({ allowed: true });
    expect((await counters.takeTry('abc1234', 'c', 1, 20)).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await counters.takeTry('abc1234', 'c', 1, 20)).toEqual({ allowed: true });
  });
});
