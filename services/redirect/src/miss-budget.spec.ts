import { clientKey, MissBudget } from './miss-budget';

describe('clientKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:fffe', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['2001:db8:1:2:3:4:192.0.2.1', '2001:db8:1:2::/64'],
    ['unknown', 'unknown'],
  ])('keys %s as %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });
});

describe('MissBudget', () => {
  afterEach(() => jest.useRealTimers());

  it('lets a client miss `burst` times, then refills at the rate per minute', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const budget = new MissBudget({ perMinute: 60, burst: 3, maxClients: 10 });
    const client = budget.for('198.51.100.7');
    expect([client.take(), client.take(), client.take(), client.take()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(budget.retryAfterSeconds('198.51.100.7')).toBe(1);
    jest.advanceTimersByTime(1000);
    expect(client.take()).toBe(true);
    expect(client.take()).toBe(false);
    // Another client, and another /64, are not touched by it.
    expect(budget.for('198.51.100.8').take()).toBe(true);
  });

  it('gives back the token of a lookup that found its link', () => {
    const budget = new MissBudget({ perMinute: 1, burst: 1, maxClients: 10 });
    const client = budget.for('2001:db8::1');
    expect(client.take()).toBe(true);
    client.refund();
    expect(budget.for('2001:db8::2').take()).toBe(true);
    expect(budget.for('2001:db8::3').take()).toBe(false);
    expect(budget.retryAfterSeconds('2001:db8::3')).toBe(60);
  });

  it('remembers at most maxClients, forgetting the least recently seen', () => {
    const budget = new MissBudget({ perMinute: 1, burst: 1, maxClients: 2 });
    budget.for('192.0.2.1').take();
    budget.for('192.0.2.2').take();
    budget.for('192.0.2.1').take();
    budget.for('192.0.2.3').take();
    expect(budget.clients).toBe(2);
    // 192.0.2.2 was forgotten; 192.0.2.1, seen since, was not.
    expect(budget.for('192.0.2.2').take()).toBe(true);
    expect(budget.for('192.0.2.3').take()).toBe(false);
  });
});
