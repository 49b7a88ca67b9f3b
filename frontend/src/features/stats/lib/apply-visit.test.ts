import type { LinkStats, LiveVisit } from '@shortener/contracts';
import { describe, expect, it } from 'vitest';
import { applyVisit } from './apply-visit';

const HOUR = 3_600_000;
const start = Date.UTC(2026, 0, 1, 10);

const stats: LinkStats = {
  urlID: 'x',
  range: '24h',
  from: start,
  to: start + HOUR + 5,
  interval: 'hour',
  totals: { visits: 3, humans: 2, bots: 1, uniqueVisitors: 2 },
  series: [
    { t: start, visits: 2, humans: 2, bots: 0 },
    { t: start + HOUR, visits: 1, humans: 0, bots: 1 },
  ],
  browsers: Array.from({ length: 9 }, (_, index) => ({
    name: `B${String(index)}`,
    visits: 9 - index,
  })).concat({
    name: 'Other',
    visits: 1,
  }),
  os: [{ name: 'Linux', visits: 3 }],
  devices: [{ name: 'desktop', visits: 3 }],
  referrers: [{ name: '(direct)', visits: 3 }],
  countries: [{ code: 'DE', visits: 3 }],
};

const visit = (overrides: Partial<LiveVisit>): LiveVisit => ({
  _id: '1',
  createdAt: new Date(start + HOUR + 60_000).toISOString(),
  userAgent: { platform: 'Linux', browser: 'New' },
  ipAddress: '8.8.8.8',
  country: 'US',
  device: 'bot',
  bot: true,
  ...overrides,
});

describe('applyVisit', () => {
  it('counts a bot in its bucket and lists, a full list summing a newcomer into Other', () => {
    const next = applyVisit(stats, visit({}));
    expect(next.totals).toEqual({ visits: 4, humans: 2, bots: 2, uniqueVisitors: 2 });
    expect(next.series).toEqual([
      { t: start, visits: 2, humans: 2, bots: 0 },
      { t: start + HOUR, visits: 2, humans: 0, bots: 2 },
    ]);
    expect(next.browsers.at(-1)).toEqual({ name: 'Other', visits: 2 });
    expect(next.browsers).toHaveLength(10);
    expect(next.os).toEqual([{ name: 'Linux', visits: 4 }]);
    expect(next.devices).toEqual([
      { name: 'desktop', visits: 3 },
      { name: 'bot', visits: 1 },
    ]);
    expect(next.countries).toEqual([
      { code: 'DE', visits: 3 },
      { code: 'US', visits: 1 },
    ]);
    expect(next.referrers).toBe(stats.referrers);
  });

  it('opens a new bucket when the visit is past the last one, and re-sorts by visits', () => {
    const later = start + 2 * HOUR + 10;
    const next = applyVisit(
      {
        ...stats,
        browsers: [
          { name: 'A', visits: 1 },
          { name: 'New', visits: 1 },
        ],
      },
      visit({ createdAt: new Date(later).toISOString(), bot: false, device: 'desktop' }),
    );
    expect(next.series.at(-1)).toEqual({ t: start + 2 * HOUR, visits: 1, humans: 1, bots: 0 });
    expect(next.series).toHaveLength(3);
    expect(next.to).toBe(later);
    expect(next.totals.humans).toBe(3);
    expect(next.browsers).toEqual([
      { name: 'New', visits: 2 },
      { name: 'A', visits: 1 },
    ]);
  });
});
