import { previousWindow, statsWindow, topList } from './stats-range';

const at = (iso: string) => Date.parse(iso);
const none = { createdAt: null, firstVisit: null };

describe('statsWindow', () => {
  const now = at('2026-11-24T10:17:05.123Z');

  it('24h: the 24 UTC hours up to the current one, by the hour', () => {
    const window = statsWindow('24h', now, none);
    expect(window.interval).toBe('hour');
    expect(window.from).toBe(at('2026-11-23T11:00:00Z'));
    expect(window.to).toBe(now);
    expect(window.buckets).toHaveLength(24);
    expect(window.buckets.at(-1)).toBe(at('2026-11-24T10:00:00Z'));
  });

  it('7d and 30d: that many UTC days up to today, by the day', () => {
    const week = statsWindow('7d', now, none);
    expect(week.interval).toBe('day');
    expect(week.from).toBe(at('2026-11-18T00:00:00Z'));
    expect(week.buckets).toHaveLength(7);
    expect(week.buckets.at(-1)).toBe(at('2026-11-24T00:00:00Z'));
    expect(statsWindow('30d', now, none).buckets).toHaveLength(30);
  });

  it('all: from the day the link was made, or of an older first visit, to today', () => {
    const made = at('2026-11-20T22:00:00Z');
    expect(statsWindow('all', now, { createdAt: made, firstVisit: null }).from).toBe(
      at('2026-11-20T00:00:00Z'),
    );
    expect(
      statsWindow('all', now, { createdAt: made, firstVisit: at('2026-11-19T23:00:00Z') }).buckets,
    ).toHaveLength(6);
    expect(statsWindow('all', now, none).buckets).toEqual([at('2026-11-24T00:00:00Z')]);
  });
});

describe('previousWindow', () => {
  const now = at('2026-11-24T10:17:05.123Z');

  it('is the window moved back by its range: the same hours of the day, days before', () => {
    const day = statsWindow('24h', now, none);
    expect(previousWindow(day)).toEqual({ from: day.from - 86_400_000, to: day.to - 86_400_000 });
    expect(previousWindow(statsWindow('7d', now, none))).toEqual({
      from: at('2026-11-11T00:00:00Z'),
      to: at('2026-11-17T10:17:05.123Z'),
    });
    expect(previousWindow(statsWindow('30d', now, none))?.from).toBe(at('2026-09-26T00:00:00Z'));
  });

  it("is none for 'all', which has nothing before it", () => {
    expect(previousWindow(statsWindow('all', now, none))).toBeNull();
  });
});

describe('topList', () => {
  it('sorts by visits, then by name, and keeps a short list whole', () => {
    expect(
      topList(
        new Map([
          ['b', 2],
          ['a', 2],
          ['c', 5],
        ]),
      ),
    ).toEqual([
      ['c', 5],
      ['a', 2],
      ['b', 2],
    ]);
  });

  it('keeps nine and sums the rest as Other, so a long list still adds up', () => {
    const counts = new Map(Array.from({ length: 15 }, (_, i) => [`v${i}`, 100 - i] as const));
    const list = topList(counts);
    expect(list).toHaveLength(10);
    expect(list.slice(0, 9).map(([name]) => name)).toEqual(
      Array.from({ length: 9 }, (_, i) => `v${i}`),
    );
    expect(list[9]).toEqual(['Other', 91 + 90 + 89 + 88 + 87 + 86]);
    expect(list.reduce((sum, [, visits]) => sum + visits, 0)).toBe(
      [...counts.values()].reduce((a, b) => a + b, 0),
    );
  });
});
