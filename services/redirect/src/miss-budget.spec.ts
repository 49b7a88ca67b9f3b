import { MissBudget } from './miss-budget';

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

  it('counts only a take as seeing a client: a refund or a Retry-After question does not', () => {
    const budget = new MissBudget({ perMinute: 1, burst: 1, maxClients: 2 });
    const first = budget.for('192.0.2.1');
    first.take();
    budget.for('192.0.2.2').take();
    first.refund();
    budget.retryAfterSeconds('192.0.2.1');
    budget.for('192.0.2.3').take();
    // 192.0.2.1 was the least recently seen, and forgotten: it starts with a full bucket.
    expect(budget.for('192.0.2.1').take()).toBe(true);
    expect(budget.for('192.0.2.3').take()).toBe(false);
  });
});
