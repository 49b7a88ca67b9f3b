import { randomUUID } from 'node:crypto';
import {
  ACCOUNT_STATS_MESSAGES,
  ACCOUNT_VISITS_CSV_COLUMNS,
  accountStatsSchema,
  API_KEY_MESSAGES,
  linkStatsSchema,
  MESSAGES,
  STATS_FILTER_MESSAGES,
  type AccountStats,
  type CreatedApiKey,
  type Domain,
  type LinkStats,
} from '@shortener/contracts';
import { startDnsResponder, waitFor, type DnsResponder, type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import { EventReader } from './support/event-reader';
import { signIn } from './support/sign-in';
import * as sample from './support/stats-visits';
import { someAddress, startUsersStack, type UsersStack } from './support/users-stack';

// GET /api/analytics through the gateway on the whole stack (real PostgreSQL, Redis, Kafka):
// visits through /r/ of many countries, devices, browsers and referrers over several links of
// two users; the account's numbers are the sum of its links' under every filter (a branded
// domain's too, as its links move to it and back), a deleted link's visits leave them, the
// account's live stream carries its own visits only, and the refusals are those of every
// signed-in call.

const run = randomUUID();
const USERS = {
  erin: { sub: `account-erin-${run}`, name: 'Erin Account', picture: '', email: 'e@example.com' },
  frank: { sub: `account-frank-${run}`, name: 'Frank Account', picture: '', email: 'f@ex.com' },
};

/**
 * [link index, address, User-Agent, Referer]. 8.8.8.8 and Google's IPv6 address are in the
 * US, 1.1.1.1 in Australia, 10.1.2.3 nowhere (ZZ). Erin's links are 0, 1 and 2; Frank's 3.
 */
const VISITS: Array<[number, string, string, string?]> = [
  [0, '8.8.8.8', sample.CHROME_WINDOWS, 'https://news.example.org/item?id=1'],
  [0, '8.8.8.8', sample.CHROME_WINDOWS],
  [0, '1.1.1.1', sample.SAFARI_IPHONE, 'https://news.example.org/other'],
  [0, '10.1.2.3', sample.CONSOLE],
  [1, '1.1.1.1', sample.SAFARI_IPHONE],
  [1, '2001:4860:4860::8888', sample.GOOGLEBOT],
  [1, '8.8.8.8', sample.CHROME_WINDOWS, 'https://a.example/'],
  [1, '10.1.2.3', sample.CONSOLE, 'https://NEWS.Example.org/x'],
  [2, '1.1.1.1', sample.CHROME_WINDOWS, 'https://a.example/'],
  [2, '8.8.8.8', sample.SAFARI_IPHONE],
  [2, '2001:4860:4860::8888', sample.GOOGLEBOT, 'https://b.example/'],
  [3, '8.8.8.8', sample.CHROME_WINDOWS],
  [3, '1.1.1.1', sample.SAFARI_IPHONE, 'https://news.example.org/'],
];
const ERIN_LINKS = [0, 1, 2];

type Named = Array<{ name: string; visits: number }>;

/** A list's entries summed by name, in a stable order, those with no visits left out. */
function summed(lists: Named[]): Named {
  const counts = new Map<string, number>();
  for (const list of lists) {
    for (const { name, visits } of list) counts.set(name, (counts.get(name) ?? 0) + visits);
  }
  return [...counts]
    .filter(([, visits]) => visits > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, visits]) => ({ name, visits }));
}

const sortedByName = (list: Named): Named => [...list].sort((a, b) => (a.name < b.name ? -1 : 1));
const countries = (stats: { countries: Array<{ code: string; visits: number }> }): Named =>
  stats.countries.map(({ code, visits }) => ({ name: code, visits }));

describe('GET /api/analytics', () => {
  let started: UsersStack;
  let stack: Stack;
  let erin: Browser;
  let frank: Browser;
  let dns: DnsResponder;
  const codes: string[] = [];

  const query = (filters: Record<string, string>) => new URLSearchParams(filters).toString();

  async function analytics(
    filters: Record<string, string> = {},
    who: Browser = erin,
  ): Promise<AccountStats> {
    const response = await who.api(
      `${stack.url}/api/analytics?${query({ range: '24h', ...filters })}`,
    );
    expect(response.status).toBe(200);
    return accountStatsSchema.parse(await response.json());
  }

  async function linkStats(code: string, filters: Record<string, string>): Promise<LinkStats> {
    const response = await erin.api(
      `${stack.url}/api/stats/${code}?${query({ range: '24h', ...filters })}`,
    );
    expect(response.status).toBe(200);
    return linkStatsSchema.parse(await response.json());
  }

  async function createKey(scopes: string[]): Promise<CreatedApiKey> {
    const response = await erin.api(`${stack.url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `key ${randomUUID().slice(0, 6)}`, scopes }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as CreatedApiKey;
  }

  /** What the account should answer: its links' stats under the same filters, summed. */
  async function sumOfLinks(filters: Record<string, string>, links: number[]) {
    // A link's stats take neither: the links asked are those on it.
    const { link } = filters;
    const rest = Object.fromEntries(
      Object.entries(filters).filter(([name]) => name !== 'link' && name !== 'domain'),
    );
    const own = links.map((index) => codes[index]!);
    const read = link === undefined ? own : own.filter((code) => code === link);
    const each = await Promise.all(read.map((code) => linkStats(code, rest)));
    const total = (key: 'visits' | 'humans' | 'bots') =>
      each.reduce((sum, stats) => sum + stats.totals[key], 0);
    return {
      totals: { visits: total('visits'), humans: total('humans'), bots: total('bots') },
      series: each[0]
        ? each[0].series.map((point, index) => ({
            t: point.t,
            visits: each.reduce((sum, stats) => sum + stats.series[index]!.visits, 0),
            humans: each.reduce((sum, stats) => sum + stats.series[index]!.humans, 0),
            bots: each.reduce((sum, stats) => sum + stats.series[index]!.bots, 0),
          }))
        : [],
      browsers: summed(each.map((stats) => stats.browsers)),
      os: summed(each.map((stats) => stats.os)),
      devices: summed(each.map((stats) => stats.devices)),
      referrers: summed(each.map((stats) => stats.referrers)),
      countries: summed(each.map(countries)),
      links: read
        .map((code, index) => ({ urlID: code, visits: each[index]!.totals.visits }))
        .filter(({ visits }) => visits > 0)
        .sort((a, b) => b.visits - a.visits || (a.urlID < b.urlID ? -1 : 1)),
      uniqueVisitors: each.reduce((sum, stats) => sum + stats.totals.uniqueVisitors, 0),
    };
  }

  async function expectSumOfLinks(filters: Record<string, string>, links = ERIN_LINKS) {
    const account = await analytics(filters);
    const expected = await sumOfLinks(filters, links);
    const { uniqueVisitors, ...totals } = account.totals;
    expect({ filters, totals }).toEqual({ filters, totals: expected.totals });
    if (expected.series.length > 0) expect(account.series).toEqual(expected.series);
    expect({
      browsers: sortedByName(account.browsers),
      os: sortedByName(account.os),
      devices: sortedByName(account.devices),
      referrers: sortedByName(account.referrers),
      countries: sortedByName(countries(account)),
      links: account.links,
    }).toEqual({
      browsers: expected.browsers,
      os: expected.os,
      devices: expected.devices,
      referrers: expected.referrers,
      countries: expected.countries,
      links: expected.links,
    });
    // A visitor of two links on one day is one visitor of the account.
    expect(uniqueVisitors).toBeLessThanOrEqual(expected.uniqueVisitors);
    expect(uniqueVisitors > 0).toBe(expected.totals.visits > 0);
    return account;
  }

  beforeAll(async () => {
    dns = await startDnsResponder();
    started = await startUsersStack(USERS, {
      serviceEnv: { links: { DNS_SERVERS: dns.server } },
      env: {
        TRUSTED_PROXIES: '127.0.0.0/8,::1',
        SIGN_IN_RATE_LIMIT: '1000',
        REMOVALS_INTERVAL_MS: '200',
        OWNER_NOTICES_INTERVAL_MS: '200',
        DELETE_UNDO_WINDOW_MS: '6000',
      },
    });
    ({ stack } = started);
    erin = new Browser({ 'x-forwarded-for': '198.18.9.1' });
    frank = new Browser({ 'x-forwarded-for': '198.18.9.2' });
    await signIn(erin, stack.url, 'erin');
    await signIn(frank, stack.url, 'frank');
    for (const owner of [erin, erin, erin, frank]) {
      const target = new URLSearchParams({
        url: `https://example.com/${randomUUID()}`,
        days: '30',
      });
      const shortened = await owner.api(`${stack.url}/api/shorten/?${target.toString()}`, {
        method: 'POST',
      });
      expect(shortened.status).toBe(201);
      codes.push(((await shortened.json()) as { url: string }).url);
    }
    for (const [link, ip, userAgent, referer] of VISITS) {
      const visit = await sample.visitLink(stack.url, codes[link]!, ip, userAgent, referer);
      expect(visit.status).toBe(302);
    }
    const erinVisits = VISITS.filter(([link]) => ERIN_LINKS.includes(link)).length;
    await waitFor(
      async () =>
        (await analytics()).totals.visits === erinVisits &&
        (await analytics({}, frank)).totals.visits === VISITS.length - erinVisits,
      { what: 'the visits in the accounts', timeoutMs: 60_000, intervalMs: 250 },
    );
    // The stack's start and the visits' way through Kafka, on a loaded machine.
  }, 180_000);

  afterAll(async () => {
    await started?.stop();
    await dns?.stop();
  });

  it("answers the sum of the account's links, without a filter and under every filter", async () => {
    const all = await expectSumOfLinks({});
    expect(all.totals).toMatchObject({ visits: 11, humans: 9, bots: 2 });
    expect(all.links.map(({ urlID }) => urlID).sort()).toEqual(
      ERIN_LINKS.map((index) => codes[index]).sort(),
    );
    expect(all.range).toBe('24h');
    expect(all.previous).toMatchObject({ visits: 0 });
    const filters: Array<Record<string, string>> = [
      { country: 'US' },
      { country: 'ZZ' },
      { device: 'mobile' },
      { device: 'bot' },
      { browser: 'Chrome' },
      { os: 'iOS' },
      { referrer: 'news.example.org' },
      { referrer: '(direct)' },
      { country: 'US', device: 'desktop' },
      { country: 'AU', referrer: 'a.example' },
      { link: codes[1]! },
      { link: codes[0]!, country: 'US' },
      { link: codes[2]!, device: 'bot', referrer: 'b.example' },
    ];
    for (const filter of filters) await expectSumOfLinks(filter);
    expect((await analytics({ country: 'US', device: 'desktop' })).totals.visits).toBe(3);
    expect((await analytics({ referrer: 'news.example.org' })).totals.visits).toBe(3);
  });

  it('counts the same over every range and a period given by from and to', async () => {
    const day = await analytics();
    for (const range of ['7d', '30d', 'all']) {
      const stats = await analytics({ range });
      expect({ range, visits: stats.totals.visits }).toEqual({ range, visits: 11 });
      expect(stats.interval).toBe('day');
    }
    const period = await analytics({
      from: String(day.from),
      to: new Date(day.to).toISOString(),
    });
    expect(period.range).toBe('custom');
    expect(period.totals).toEqual(day.totals);
    expect(period.previous).toMatchObject({ visits: 0 });
    const filtered = await analytics({ from: String(day.from), to: String(day.to), os: 'iOS' });
    expect(filtered.totals.visits).toBe((await analytics({ os: 'iOS' })).totals.visits);
  });

  it("counts nothing of another user's link given as the link filter", async () => {
    const theirs = await analytics({ link: codes[3]! });
    expect(theirs.totals).toEqual({ visits: 0, humans: 0, bots: 0, uniqueVisitors: 0 });
    expect(theirs.links).toEqual([]);
    expect(theirs.countries).toEqual([]);
    const mixed = await analytics({ link: codes[3]!, country: 'US' });
    expect(mixed.totals.visits).toBe(0);
    // Frank sees his own only.
    const frankStats = await analytics({}, frank);
    expect(frankStats.links).toEqual([{ urlID: codes[3], visits: 2 }]);
  });

  it("filters by a branded domain: the links on it now, counting nothing of another's", async () => {
    // A letter last: eight hex digits alone in a host label spell an IPv4 address.
    const host = `go-${run.slice(0, 8)}q.Brand.Example`.toLowerCase();
    const added = await erin.api(`${stack.url}/api/domains`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host }),
    });
    expect(added.status).toBe(201);
    const { verification } = (await added.json()) as Domain;
    dns.setTxt(verification.name, [verification.value]);
    expect(
      (await erin.api(`${stack.url}/api/domains/${host}/verify`, { method: 'POST' })).status,
    ).toBe(200);
    const move = async (domain: string | null) => {
      const moved = await erin.api(`${stack.url}/api/links/${codes[1]!}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ domain }),
      });
      expect(moved.status).toBe(200);
    };
    const onDomain = async () => (await analytics({ domain: host })).totals.visits;
    expect(await onDomain()).toBe(0);

    await move(host);
    const its = (await linkStats(codes[1]!, {})).totals.visits;
    await waitFor(async () => (await onDomain()) === its, {
      what: "the moved link's visits under its domain",
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    const filters: Array<Record<string, string>> = [
      {},
      { country: 'US' },
      { device: 'bot' },
      { link: codes[1]! },
    ];
    for (const more of filters) {
      await expectSumOfLinks({ ...more, domain: host }, [1]);
    }
    expect((await analytics({ domain: host, link: codes[0]! })).totals.visits).toBe(0);
    // Any letter case; Frank's account has nothing on Erin's domain.
    expect((await analytics({ domain: host.toUpperCase() })).totals.visits).toBe(its);
    expect((await analytics({ domain: host }, frank)).totals.visits).toBe(0);
    const csv = await erin.api(`${stack.url}/api/analytics/visits.csv?range=24h&domain=${host}`);
    expect(csv.status).toBe(200);
    const rows = (await csv.text()).trim().split('\r\n').slice(1);
    expect(rows).toHaveLength(its);
    expect(rows.every((row) => row.startsWith(`${codes[1]!},`))).toBe(true);

    await move(null);
    await waitFor(async () => (await onDomain()) === 0, {
      what: 'the link back on the main origin, off the domain',
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    expect((await analytics()).totals.visits).toBe(11);
  });

  it('answers the campaign lists, and a campaign filter counts only the visits it names', async () => {
    const all = await analytics();
    for (const list of [all.utmSources, all.utmMediums, all.utmCampaigns]) {
      expect(list.every(({ visits }) => visits > 0)).toBe(true);
    }
    // None of these visits came through a link carrying a campaign.
    const campaign = await analytics({ utm_source: 'newsletter' });
    expect(campaign.totals.visits).toBe(0);
  });

  it.each([
    [{ country: 'gb' }, STATS_FILTER_MESSAGES.country],
    [{ device: 'phone' }, STATS_FILTER_MESSAGES.device],
    [{ browser: '' }, STATS_FILTER_MESSAGES.browser],
    [{ referrer: 'x'.repeat(254) }, STATS_FILTER_MESSAGES.referrer],
    [{ link: '../x' }, ACCOUNT_STATS_MESSAGES.link],
    [{ domain: 'not a host' }, ACCOUNT_STATS_MESSAGES.domain],
    [{ domain: '127.0.0.1:80' }, ACCOUNT_STATS_MESSAGES.domain],
    [{ domain: 'localhost' }, ACCOUNT_STATS_MESSAGES.domain],
    [{ utm_source: '' }, ACCOUNT_STATS_MESSAGES.utm_source],
    [{ utm_campaign: 'a\u0007b' }, ACCOUNT_STATS_MESSAGES.utm_campaign],
    [{ from: 'yesterday', to: '2026-01-02' }, ACCOUNT_STATS_MESSAGES.from],
    [{ from: '2026-01-01', to: '2026-13-40' }, ACCOUNT_STATS_MESSAGES.to],
    [{ from: '2026-01-01' }, ACCOUNT_STATS_MESSAGES.period],
    [{ from: '2026-01-02', to: '2026-01-01' }, ACCOUNT_STATS_MESSAGES.period],
    [{ range: '1y' }, 'range must be one of 24h, 7d, 30d, all'],
  ])('refuses %j with 400 naming it', async (filters, message) => {
    const response = await erin.api(`${stack.url}/api/analytics?${query(filters)}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(message);
  });

  it('refuses a caller signed out (401) and a key without stats:read (403); takes one with it', async () => {
    const anonymous = new Browser({ 'x-forwarded-for': someAddress() });
    const signedOut = await anonymous.api(`${stack.url}/api/analytics`);
    expect(signedOut.status).toBe(401);
    expect(((await signedOut.json()) as { message: string }).message).toBe(MESSAGES.unauthorized);

    const writer = await createKey(['links:write']);
    const refused = await fetch(`${stack.url}/api/analytics`, {
      headers: { authorization: `Bearer ${writer.key}`, 'x-forwarded-for': someAddress() },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toBe(
      API_KEY_MESSAGES.missingScope('stats:read'),
    );

    const reader = await createKey(['stats:read']);
    const taken = await fetch(`${stack.url}/api/analytics?range=24h&country=US`, {
      headers: { authorization: `Bearer ${reader.key}`, 'x-forwarded-for': someAddress() },
    });
    expect(taken.status).toBe(200);
    expect(accountStatsSchema.parse(await taken.json()).totals).toEqual(
      (await analytics({ country: 'US' })).totals,
    );
  });

  it("exports the account's visits of the range as CSV, each with its link, as filtered", async () => {
    const csv = async (filters: Record<string, string>, who: Browser = erin) => {
      const response = await who.api(
        `${stack.url}/api/analytics/visits.csv?${query({ range: '24h', ...filters })}`,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      // No cell of these visits holds a comma or a quote.
      const [header, ...rows] = (await response.text())
        .split('\r\n')
        .filter((line) => line !== '')
        .map((line) => line.split(','));
      expect(header).toEqual([...ACCOUNT_VISITS_CSV_COLUMNS]);
      const at = (name: string) => ACCOUNT_VISITS_CSV_COLUMNS.indexOf(name as never);
      return rows.map((cells) => ({
        link: cells[at('link')]!,
        time: cells[at('time')]!,
        country: cells[at('country')]!,
        device: cells[at('device')]!,
      }));
    };
    const all = await csv({});
    expect(all).toHaveLength((await analytics()).totals.visits);
    for (const index of ERIN_LINKS) {
      const code = codes[index]!;
      expect(all.filter((row) => row.link === code)).toHaveLength(
        (await linkStats(code, {})).totals.visits,
      );
    }
    const times = all.map((row) => row.time);
    expect(times).toEqual([...times].sort());
    const usDesktop = await csv({ country: 'US', device: 'desktop' });
    expect(usDesktop).toHaveLength(3);
    expect(usDesktop.every((row) => row.country === 'US' && row.device === 'desktop')).toBe(true);
    expect(await csv({ link: codes[3]! })).toEqual([]);
    expect((await csv({}, frank)).map((row) => row.link)).toEqual([codes[3], codes[3]]);

    const refused = await erin.api(`${stack.url}/api/analytics/visits.csv?country=gb`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toBe(
      STATS_FILTER_MESSAGES.country,
    );
    const anonymous = new Browser({ 'x-forwarded-for': someAddress() });
    expect((await anonymous.api(`${stack.url}/api/analytics/visits.csv`)).status).toBe(401);
  });

  it("takes a deleted link's visits off the account's numbers", async () => {
    const gone = codes[1]!;
    const before = await analytics();
    const its = await linkStats(gone, {});
    const deleted = await erin.api(`${stack.url}/api/delete/${gone}`, { method: 'POST' });
    expect(deleted.status).toBe(200);
    await waitFor(
      async () => (await analytics()).totals.visits === before.totals.visits - its.totals.visits,
      { what: "the deleted link's visits off the account", timeoutMs: 60_000, intervalMs: 500 },
    );
    const after = await expectSumOfLinks({}, [0, 2]);
    expect(after.links.map(({ urlID }) => urlID)).not.toContain(gone);
    expect(after.totals.uniqueVisitors).toBeLessThanOrEqual(before.totals.uniqueVisitors);
    await expectSumOfLinks({ device: 'bot' }, [0, 2]);
    await expectSumOfLinks({ country: 'ZZ' }, [0, 2]);
    expect((await analytics({ link: gone })).totals.visits).toBe(0);
  });

  it("streams every visit of the caller's links live, and none of another's", async () => {
    const live = (who: Browser, headers: Record<string, string> = {}) =>
      who.fetch(`${stack.url}/api/analytics/live`, {
        headers: { 'sec-fetch-site': 'same-origin', accept: 'text/event-stream', ...headers },
      });
    const opened = await live(erin);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const erinStream = new EventReader(opened);
    const frankStream = new EventReader(await live(frank));
    try {
      for (const link of [0, 2]) {
        const visit = await sample.visitLink(
          stack.url,
          codes[link]!,
          '1.1.1.1',
          sample.SAFARI_IPHONE,
        );
        expect(visit.status).toBe(302);
      }
      await waitFor(() => erinStream.visits().length === 2, {
        what: "Erin's two live visits",
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      expect(erinStream.visits()[0]).toMatchObject({ ipAddress: '1.1.1.1', device: 'mobile' });
      const theirs = await sample.visitLink(stack.url, codes[3]!, '8.8.8.8', sample.CHROME_WINDOWS);
      expect(theirs.status).toBe(302);
      await waitFor(() => frankStream.visits().length === 1, {
        what: "Frank's live visit",
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      expect(frankStream.visits()[0]).toMatchObject({ ipAddress: '8.8.8.8' });
      expect(erinStream.visits()).toHaveLength(2);
    } finally {
      await erinStream.close();
      await frankStream.close();
    }

    const anonymous = new Browser({ 'x-forwarded-for': someAddress() });
    expect((await live(anonymous)).status).toBe(401);
    const crossSite: Array<Record<string, string>> = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' },
    ];
    for (const headers of crossSite) {
      expect((await live(erin, headers)).status).toBe(403);
    }
  });
});
