import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import {
  linkStatsSchema,
  MESSAGES,
  STATS_FILTER_MAX,
  STATS_FILTER_MESSAGES,
  type LinkStats,
  type Visit,
} from '@shortener/contracts';
import { waitFor, type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import { signIn } from './support/sign-in';
import * as sample from './support/stats-visits';
import { startUsersStack, type UsersStack } from './support/users-stack';

// The filters of a link's stats, visitor log and CSV, through the gateway on the whole stack
// (real PostgreSQL, Redis, Kafka): visits through /r/ of known countries, devices, browsers
// and referrers, each filter and a combination counting exactly the visits they match.

const run = randomUUID();
const USERS = {
  erin: { sub: `filters-erin-${run}`, name: 'Erin Filters', picture: '', email: 'e@example.com' },
  frank: { sub: `filters-frank-${run}`, name: 'Frank F', picture: '', email: 'f@example.com' },
};

/**
 * The visits of the link: [address, User-Agent, Referer]. 8.8.8.8 and Google's IPv6 address
 * are in the US, 1.1.1.1 in Australia, 10.1.2.3 nowhere (ZZ); the referrers' hosts are
 * news.example.org (once in capitals: the stats count hosts in lower case), a.example, and
 * none ((direct)).
 */
const VISITS: Array<[string, string, string?]> = [
  ['8.8.8.8', sample.CHROME_WINDOWS, 'https://news.example.org/item?id=1'],
  ['8.8.8.8', sample.CHROME_WINDOWS],
  ['1.1.1.1', sample.SAFARI_IPHONE, 'https://news.example.org/other'],
  ['1.1.1.1', sample.SAFARI_IPHONE],
  ['2001:4860:4860::8888', sample.GOOGLEBOT],
  ['10.1.2.3', sample.CONSOLE, 'https://NEWS.Example.org/x'],
  ['1.1.1.1', sample.CHROME_WINDOWS, 'https://a.example/'],
];

describe('the filters of the stats, the visitor log and the CSV', () => {
  let started: UsersStack;
  let stack: Stack;
  let erin: Browser;
  let frank: Browser;
  let code: string;

  const query = (filters: Record<string, string>) => new URLSearchParams(filters).toString();

  async function stats(filters: Record<string, string> = {}, range = '24h'): Promise<LinkStats> {
    const response = await erin.api(
      `${stack.url}/api/stats/${code}?${query({ range, ...filters })}`,
    );
    expect(response.status).toBe(200);
    return linkStatsSchema.parse(await response.json());
  }

  async function visitors(filters: Record<string, string>): Promise<Visit[]> {
    const response = await erin.api(`${stack.url}/api/visitors/${code}?${query(filters)}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Visit[];
  }

  async function csv(filters: Record<string, string>): Promise<Array<Record<string, string>>> {
    const response = await erin.api(`${stack.url}/api/stats/${code}/visits.csv?${query(filters)}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.startsWith(`${sample.CSV_HEADER}\r\n`)).toBe(true);
    return parse<Record<string, string>>(text, { columns: true });
  }

  const sorted = (values: string[]) => [...values].sort();

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: { TRUSTED_PROXIES: '127.0.0.0/8,::1', SIGN_IN_RATE_LIMIT: '1000' },
    });
    ({ stack } = started);
    erin = new Browser({ 'x-forwarded-for': '198.18.8.1' });
    frank = new Browser({ 'x-forwarded-for': '198.18.8.2' });
    await signIn(erin, stack.url, 'erin');
    await signIn(frank, stack.url, 'frank');
    const target = new URLSearchParams({ url: `https://example.com/${randomUUID()}`, days: '30' });
    const shortened = await erin.api(`${stack.url}/api/shorten/?${target.toString()}`, {
      method: 'POST',
    });
    expect(shortened.status).toBe(201);
    code = ((await shortened.json()) as { url: string }).url;
    for (const [ip, userAgent, referer] of VISITS) {
      expect((await sample.visitLink(stack.url, code, ip, userAgent, referer)).status).toBe(302);
    }
    await waitFor(async () => (await stats()).totals.visits === VISITS.length, {
      what: 'the visits in the stats',
      timeoutMs: 30_000,
      intervalMs: 250,
    });
  });

  afterAll(async () => {
    await started?.stop();
  });

  it('counts only the visits of a country, in every number of the answer', async () => {
    const us = await stats({ country: 'US' });
    expect(us.totals).toEqual({ visits: 3, humans: 2, bots: 1, uniqueVisitors: 2 });
    expect(us.series.reduce((sum, point) => sum + point.visits, 0)).toBe(3);
    expect(us.series.reduce((sum, point) => sum + point.bots, 0)).toBe(1);
    expect(us.countries).toEqual([{ code: 'US', visits: 3 }]);
    expect(us.devices).toEqual([
      { name: 'desktop', visits: 2 },
      { name: 'bot', visits: 1 },
    ]);
    expect(us.referrers).toEqual([
      { name: '(direct)', visits: 2 },
      { name: 'news.example.org', visits: 1 },
    ]);
    expect(us.browsers).toEqual([
      { name: 'Chrome', visits: 2 },
      { name: 'Googlebot', visits: 1 },
    ]);
    // The shape of the answer without a filter: the same range, and the period before.
    const all = await stats();
    expect({ from: us.from, interval: us.interval, buckets: us.series.length }).toEqual({
      from: all.from,
      interval: all.interval,
      buckets: all.series.length,
    });
    expect(us.previous).toEqual({
      from: us.from - 86_400_000,
      to: us.to - 86_400_000,
      visits: 0,
      humans: 0,
      bots: 0,
    });
    expect((await stats({ country: 'ZZ' })).totals).toEqual({
      visits: 1,
      humans: 1,
      bots: 0,
      uniqueVisitors: 1,
    });
    const week = await stats({ country: 'AU' }, '7d');
    expect(week.totals.visits).toBe(3);
    expect(week.previous).toMatchObject({ from: week.from - 7 * 86_400_000, visits: 0 });
    const ever = await stats({ country: 'AU' }, 'all');
    expect(ever.totals).toEqual({ visits: 3, humans: 3, bots: 0, uniqueVisitors: 2 });
    expect(ever.previous).toBeUndefined();
  });

  it('adds up, per country, to the numbers without a filter', async () => {
    const all = await stats();
    const merged = new Map<string, number>();
    let visits = 0;
    for (const { code: country } of all.countries) {
      const one = await stats({ country });
      visits += one.totals.visits;
      for (const { name, visits: count } of one.referrers) {
        merged.set(name, (merged.get(name) ?? 0) + count);
      }
    }
    expect(visits).toBe(all.totals.visits);
    expect(Object.fromEntries(merged)).toEqual(
      Object.fromEntries(all.referrers.map(({ name, visits: count }) => [name, count])),
    );
  });

  it('filters by device, browser, os and referrer host, as the stats list them', async () => {
    expect((await stats({ device: 'mobile' })).countries).toEqual([{ code: 'AU', visits: 2 }]);
    expect((await stats({ device: 'bot' })).totals.bots).toBe(1);
    expect((await stats({ browser: 'Chrome' })).totals.visits).toBe(3);
    expect((await stats({ os: 'iOS' })).browsers).toEqual([{ name: 'Mobile Safari', visits: 2 }]);
    // The host in capitals is the same referrer, as the stats count it.
    const news = await stats({ referrer: 'news.example.org' });
    expect(news.totals.visits).toBe(3);
    expect(news.referrers).toEqual([{ name: 'news.example.org', visits: 3 }]);
    expect(news.countries).toEqual([
      { code: 'AU', visits: 1 },
      { code: 'US', visits: 1 },
      { code: 'ZZ', visits: 1 },
    ]);
    const direct = await stats({ referrer: '(direct)' });
    expect(direct.totals).toEqual({ visits: 3, humans: 2, bots: 1, uniqueVisitors: 3 });
    expect(direct.referrers).toEqual([{ name: '(direct)', visits: 3 }]);
  });

  it('combines filters with AND, and answers zeros when nothing matches', async () => {
    const both = await stats({ country: 'AU', browser: 'Chrome' });
    expect(both.totals).toEqual({ visits: 1, humans: 1, bots: 0, uniqueVisitors: 1 });
    expect(both.referrers).toEqual([{ name: 'a.example', visits: 1 }]);
    expect((await stats({ os: 'iOS', referrer: '(direct)' })).totals.visits).toBe(1);
    const none = await stats({ country: 'GB', device: 'desktop' });
    expect(none.totals).toEqual({ visits: 0, humans: 0, bots: 0, uniqueVisitors: 0 });
    expect(none.series.every((point) => point.visits === 0)).toBe(true);
    expect([none.countries, none.devices, none.browsers, none.os, none.referrers]).toEqual([
      [],
      [],
      [],
      [],
      [],
    ]);
  });

  it('filters the visitor log, and answers No visitors when nothing matches', async () => {
    const au = await visitors({ country: 'AU' });
    expect(au.map((visit) => visit.ipAddress)).toEqual(['1.1.1.1', '1.1.1.1', '1.1.1.1']);
    const news = await visitors({ referrer: 'news.example.org' });
    expect(sorted(news.map((visit) => visit.ipAddress))).toEqual(
      sorted(['8.8.8.8', '1.1.1.1', '10.1.2.3']),
    );
    expect(news.every((visit) => visit.referrer === 'news.example.org')).toBe(true);
    const mobileNews = await visitors({ device: 'mobile', referrer: 'news.example.org' });
    expect(mobileNews.map(({ ipAddress, referrer }) => ({ ipAddress, referrer }))).toEqual([
      { ipAddress: '1.1.1.1', referrer: 'news.example.org' },
    ]);
    const bots = await visitors({ device: 'bot' });
    expect(bots.map(({ ipAddress, bot }) => ({ ipAddress, bot }))).toEqual([
      { ipAddress: '2001:4860:4860::8888', bot: true },
    ]);
    const none = await erin.api(`${stack.url}/api/visitors/${code}?country=GB`);
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ message: MESSAGES.noVisitors });
  });

  it('filters the CSV, oldest first as without a filter', async () => {
    const us = await csv({ country: 'US' });
    expect(us.map((record) => [record['ip'], record['device'], record['referrer']])).toEqual([
      ['8.8.8.8', 'desktop', 'https://news.example.org/item?id=1'],
      ['8.8.8.8', 'desktop', ''],
      ['2001:4860:4860::8888', 'bot', ''],
    ]);
    const directAu = await csv({ referrer: '(direct)', country: 'AU' });
    expect(directAu.map((record) => [record['ip'], record['browser']])).toEqual([
      ['1.1.1.1', 'Mobile Safari'],
    ]);
    expect(await csv({ os: 'iOS', device: 'desktop' })).toEqual([]);
    expect(await csv({})).toHaveLength(VISITS.length);
  });

  it('refuses a bad filter with 400 naming it, on all three', async () => {
    const refused: Array<[string, string]> = [
      ['country=gb', STATS_FILTER_MESSAGES.country],
      ['country=USA', STATS_FILTER_MESSAGES.country],
      ['country=US&country=AU', STATS_FILTER_MESSAGES.country],
      ['device=phone', STATS_FILTER_MESSAGES.device],
      [`browser=${'x'.repeat(STATS_FILTER_MAX + 1)}`, STATS_FILTER_MESSAGES.browser],
      ['os=', STATS_FILTER_MESSAGES.os],
      ['referrer=a%0Ab', STATS_FILTER_MESSAGES.referrer],
    ];
    for (const path of [`stats/${code}`, `visitors/${code}`, `stats/${code}/visits.csv`]) {
      for (const [search, message] of refused) {
        const response = await erin.api(`${stack.url}/api/${path}?${search}`);
        expect({ path, search, status: response.status }).toEqual({ path, search, status: 400 });
        expect(await response.json()).toEqual({ message });
      }
    }
    expect(STATS_FILTER_MESSAGES.country.startsWith('country ')).toBe(true);
    expect(STATS_FILTER_MESSAGES.referrer.startsWith('referrer ')).toBe(true);
  });

  it("answers someone else's link as not found, filtered or not", async () => {
    for (const path of [`stats/${code}`, `visitors/${code}`, `stats/${code}/visits.csv`]) {
      for (const search of ['', '?country=US', '?referrer=(direct)&device=desktop']) {
        const response = await frank.api(`${stack.url}/api/${path}${search}`);
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ message: MESSAGES.urlNotFound });
      }
    }
  });
});
