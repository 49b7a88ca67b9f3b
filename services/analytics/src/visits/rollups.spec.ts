import { DIMENSIONS, rollupsOf, type RolledVisit } from './rollups';

const HOUR = 3_600_000;

function visit(urlId: string, at: string, overrides: Partial<RolledVisit> = {}): RolledVisit {
  return {
    urlId,
    timestamp: Date.parse(at),
    bot: false,
    platform: 'Windows',
    browser: 'Chrome',
    device: 'desktop',
    country: 'NL',
    referrerHost: '(direct)',
    visitor: Buffer.from('visitor-a'),
    ...overrides,
  };
}

/** The breakdown rows as [link, hour number, dimension, value, visits]. */
function breakdownRows(rollups: ReturnType<typeof rollupsOf>) {
  const { urlIds, hours, dimensions, values, visits } = rollups.breakdowns;
  return urlIds.map((urlId, at) => [
    urlId,
    hours[at],
    DIMENSIONS[dimensions[at]!],
    values[at],
    visits[at],
  ]);
}

describe('rollupsOf', () => {
  it('counts a campaign value only for visits whose request named it', () => {
    const rollups = rollupsOf([
      visit('a', '2026-11-23T10:00:00.000Z', { utmSource: 'news', utmCampaign: 'spring' }),
      visit('a', '2026-11-23T10:10:00.000Z', { utmSource: 'news', utmMedium: null }),
      visit('a', '2026-11-23T10:20:00.000Z'),
    ]);
    const utm = breakdownRows(rollups).filter(([, , dimension]) =>
      String(dimension).startsWith('utm_'),
    );
    const hour10 = Date.parse('2026-11-23T10:00:00.000Z') / HOUR;
    expect(utm).toEqual([
      ['a', hour10, 'utm_source', 'news', 2],
      ['a', hour10, 'utm_campaign', 'spring', 1],
    ]);
  });

  it('counts visits, people and bots per link and UTC hour, and visits per link', () => {
    const rollups = rollupsOf([
      visit('b', '2026-11-23T10:59:59.999Z'),
      visit('a', '2026-11-23T10:00:00.000Z', { bot: true }),
      visit('a', '2026-11-23T10:30:00.000Z'),
      visit('a', '2026-11-23T11:00:00.000Z'),
    ]);
    const hour10 = Date.parse('2026-11-23T10:00:00.000Z') / HOUR;
    expect(rollups.hours).toEqual({
      urlIds: ['a', 'a', 'b'],
      hours: [hour10, hour10 + 1, hour10],
      visits: [2, 1, 1],
      humans: [1, 1, 1],
      bots: [1, 0, 0],
    });
    expect(rollups.links).toEqual({ urlIds: ['a', 'b'], visits: [3, 1] });
  });

  it('counts each dimension’s values per link and hour, in one order whatever the input’s', () => {
    const visits = [
      visit('a', '2026-11-23T10:00:00.000Z', { browser: 'Firefox', country: 'DE' }),
      visit('a', '2026-11-23T10:10:00.000Z', { referrerHost: 'example.com' }),
      visit('a', '2026-11-23T10:20:00.000Z', { device: 'mobile', platform: 'iOS' }),
    ];
    const hour = Date.parse('2026-11-23T10:00:00.000Z') / HOUR;
    const expected = [
      ['a', hour, 'browser', 'Chrome', 2],
      ['a', hour, 'browser', 'Firefox', 1],
      ['a', hour, 'os', 'Windows', 2],
      ['a', hour, 'os', 'iOS', 1],
      ['a', hour, 'device', 'desktop', 2],
      ['a', hour, 'device', 'mobile', 1],
      ['a', hour, 'referrer', '(direct)', 2],
      ['a', hour, 'referrer', 'example.com', 1],
      ['a', hour, 'country', 'DE', 1],
      ['a', hour, 'country', 'NL', 2],
    ];
    expect(breakdownRows(rollupsOf(visits))).toEqual(expected);
    expect(breakdownRows(rollupsOf([...visits].reverse()))).toEqual(expected);
  });

  it('keeps one visitor-day per link, UTC day and visitor, with its last visit', () => {
    const rollups = rollupsOf([
      visit('a', '2026-11-23T23:00:00.000Z'),
      visit('a', '2026-11-23T08:00:00.000Z'),
      visit('a', '2026-11-24T00:00:00.000Z'),
      visit('a', '2026-11-23T09:00:00.000Z', { visitor: Buffer.from('visitor-b') }),
      visit('b', '2026-11-23T07:00:00.000Z'),
    ]);
    const day = Date.parse('2026-11-23T00:00:00.000Z') / (24 * HOUR);
    expect(rollups.visitors).toEqual({
      urlIds: ['a', 'a', 'a', 'b'],
      days: [day, day, day + 1, day],
      visitors: ['visitor-a', 'visitor-b', 'visitor-a', 'visitor-a'].map((v) => Buffer.from(v)),
      lastSeen: [
        '2026-11-23T23:00:00.000Z',
        '2026-11-23T09:00:00.000Z',
        '2026-11-24T00:00:00.000Z',
        '2026-11-23T07:00:00.000Z',
      ].map((at) => Date.parse(at)),
    });
  });

  it('answers empty columns for no visits', () => {
    const rollups = rollupsOf([]);
    expect(rollups.links).toEqual({ urlIds: [], visits: [] });
    expect(rollups.breakdowns.urlIds).toEqual([]);
  });
});
