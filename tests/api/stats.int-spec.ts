import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import {
  linkStatsSchema,
  MESSAGES,
  type LinkStats,
  type UserData,
  type Visit,
} from '@shortener/contracts';
import { waitFor, type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import {
  CHROME_WINDOWS,
  CONSOLE,
  CSV_HEADER,
  GOOGLEBOT,
  SAFARI_IPHONE,
  visitLink,
} from './support/stats-visits';
import { startUsersStack, type UsersStack } from './support/users-stack';
import { EventReader } from './support/event-reader';
import { signIn } from './support/sign-in';

// The stats API through the gateway, on the whole stack (real PostgreSQL, Redis, Kafka):
// visits through /r/ with known User-Agents, addresses and referrers give exactly the
// expected stats; the live stream delivers them; the CSV reads back; strangers get nothing.

const USERS = {
  carol: {
    sub: `stats-carol-${randomUUID()}`,
    name: 'Carol Stats',
    email: 'carol@example.com',
    picture: 'https://example.com/carol.png',
  },
  dave: {
    sub: `stats-dave-${randomUUID()}`,
    name: 'Dave Stats',
    email: 'dave@example.com',
    picture: 'https://example.com/dave.png',
  },
};

describe('the stats API', () => {
  let started: UsersStack;
  let stack: Stack;
  let carol: Browser;
  let dave: Browser;

  const visit = (code: string, ip: string, userAgent: string, referer?: string) =>
    visitLink(stack.url, code, ip, userAgent, referer);

  async function newLink(browser: Browser): Promise<string> {
    const query = new URLSearchParams({ url: `https://example.com/${randomUUID()}`, days: '30' });
    const response = await browser.api(`${stack.url}/api/shorten/?${query.toString()}`, {
      method: 'POST',
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { url: string }).url;
  }

  async function stats(code: string, range = '24h'): Promise<LinkStats> {
    const response = await carol.api(`${stack.url}/api/stats/${code}?range=${range}`);
    expect(response.status).toBe(200);
    return linkStatsSchema.parse(await response.json());
  }

  const live = (browser: Browser, code: string, headers: Record<string, string> = {}) =>
    browser.fetch(`${stack.url}/api/stats/${code}/live`, {
      headers: { 'sec-fetch-site': 'same-origin', accept: 'text/event-stream', ...headers },
    });

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: { TRUSTED_PROXIES: '127.0.0.0/8,::1', SIGN_IN_RATE_LIMIT: '1000' },
      serviceEnv: { gateway: { LIVE_HEARTBEAT_MS: '300' } },
    });
    ({ stack } = started);
    carol = new Browser({ 'x-forwarded-for': '198.18.7.1' });
    dave = new Browser({ 'x-forwarded-for': '198.18.7.2' });
    await signIn(carol, stack.url, 'carol');
    await signIn(dave, stack.url, 'dave');
  });

  afterAll(async () => {
    await started?.stop();
  });

  it('counts visits through /r/ exactly: people and bots, unique visitors, every breakdown', async () => {
    const code = await newLink(carol);
    const visits: Array<[string, string, string?]> = [
      ['8.8.8.8', CHROME_WINDOWS, 'https://news.example.org/item?id=1'],
      ['8.8.8.8', CHROME_WINDOWS],
      ['1.1.1.1', SAFARI_IPHONE, 'not a url'],
      ['2001:4860:4860::8888', GOOGLEBOT],
      ['10.1.2.3', CONSOLE],
    ];
    for (const [ip, userAgent, referer] of visits) {
      expect((await visit(code, ip, userAgent, referer)).status).toBe(302);
    }
    const day = await waitFor(
      async () => {
        const current = await stats(code);
        return current.totals.visits === visits.length ? current : false;
      },
      { what: 'the visits in the stats', timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(day.totals).toEqual({ visits: 5, humans: 4, bots: 1, uniqueVisitors: 4 });
    expect(day.series.reduce((sum, point) => sum + point.visits, 0)).toBe(5);
    expect(day.countries).toEqual([
      { code: 'US', visits: 3 },
      { code: 'AU', visits: 1 },
      { code: 'ZZ', visits: 1 },
    ]);
    expect(day.devices).toEqual([
      { name: 'desktop', visits: 2 },
      { name: 'bot', visits: 1 },
      { name: 'mobile', visits: 1 },
      { name: 'other', visits: 1 },
    ]);
    expect(day.referrers).toEqual([
      { name: '(direct)', visits: 3 },
      { name: '(unknown)', visits: 1 },
      { name: 'news.example.org', visits: 1 },
    ]);
    expect(day.browsers[0]).toEqual({ name: 'Chrome', visits: 2 });
    // Googlebot is named as itself, and the visitor log marks it as a bot (beside SPEC's fields).
    expect(day.browsers).toContainEqual({ name: 'Googlebot', visits: 1 });
    const log = (await (await carol.api(`${stack.url}/api/visitors/${code}`)).json()) as Visit[];
    expect(
      log.map(({ ipAddress, bot, userAgent }) => ({ ipAddress, bot, browser: userAgent.browser })),
    ).toEqual(
      expect.arrayContaining([
        { ipAddress: '2001:4860:4860::8888', bot: true, browser: 'Googlebot' },
        { ipAddress: '1.1.1.1', bot: false, browser: 'Mobile Safari' },
      ]),
    );
    expect(log.filter((visit) => visit.bot)).toHaveLength(1);

    // Beside the totals, the 24 hours before (the link is new: nothing then).
    expect(day.previous).toEqual({
      from: day.from - 86_400_000,
      to: day.to - 86_400_000,
      visits: 0,
      humans: 0,
      bots: 0,
    });

    const all = await stats(code, 'all');
    expect(all.previous).toBeUndefined();
    const user = (await (await carol.api(`${stack.url}/api/user`)).json()) as UserData;
    expect(all.totals.visits).toBe(user.urls.find((link) => link.urlID === code)?.visitCount);
    const week = await stats(code, '7d');
    expect(week.series).toHaveLength(7);
    expect(week.previous).toMatchObject({ from: week.from - 7 * 86_400_000, visits: 0 });
    expect((await stats(code, '30d')).interval).toBe('day');
  });

  it("names each visit's referrer in the visitor log: its host, or null when it had none", async () => {
    const code = await newLink(carol);
    expect(
      (await visit(code, '8.8.8.8', CHROME_WINDOWS, 'https://news.example.org/a?b=c')).status,
    ).toBe(302);
    expect((await visit(code, '1.1.1.1', SAFARI_IPHONE)).status).toBe(302);
    const log = await waitFor(
      async () => {
        const response = await carol.api(`${stack.url}/api/visitors/${code}`);
        const visits = response.status === 200 ? ((await response.json()) as Visit[]) : [];
        return visits.length === 2 ? visits : false;
      },
      { what: 'both visits in the visitor log', timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(log.map(({ ipAddress, referrer }) => ({ ipAddress, referrer }))).toEqual(
      expect.arrayContaining([
        { ipAddress: '8.8.8.8', referrer: 'news.example.org' },
        { ipAddress: '1.1.1.1', referrer: null },
      ]),
    );
    // SPEC's fields stay as they were, the referrer and the campaign fields beside them.
    expect(Object.keys(log[0] ?? {}).sort()).toEqual(
      [
        '_id',
        'bot',
        'createdAt',
        'ipAddress',
        'referrer',
        'userAgent',
        'utmSource',
        'utmMedium',
        'utmCampaign',
      ].sort(),
    );
  });

  it('streams each stored visit live, within 2 s, and ends the stream when the session ends', async () => {
    const code = await newLink(carol);
    const opened = await live(carol, code);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const stream = new EventReader(opened);
    const sent = Date.now();
    await visit(code, '1.1.1.1', SAFARI_IPHONE);
    await waitFor(() => stream.visits().length === 1, {
      what: 'the live visit',
      timeoutMs: 2000,
      intervalMs: 20,
    });
    expect(Date.now() - sent).toBeLessThan(2000);
    expect(stream.visits()[0]).toMatchObject({
      ipAddress: '1.1.1.1',
      country: 'AU',
      device: 'mobile',
      bot: false,
      referrer: null,
    });

    const logout = await carol.fetch(`${stack.url}/logout`, {
      method: 'POST',
      headers: { origin: stack.url },
    });
    expect(logout.status).toBe(302);
    await waitFor(() => stream.ended, { what: 'the stream to end', timeoutMs: 10_000 });
    expect(stream.events.at(-1)?.event).toBe('end');
    await signIn(carol, stack.url, 'carol');
  });

  it('ends its live streams when the gateway stops, so SIGTERM waits for none of them', async () => {
    const code = await newLink(carol);
    const stream = new EventReader(await live(carol, code));
    const gateway = stack.get('gateway');
    const began = Date.now();
    expect(await gateway.stop('SIGTERM')).toBe(0);
    // Well inside the 25 s shutdown deadline an open stream used to hold it to.
    expect(Date.now() - began).toBeLessThan(10_000);
    await waitFor(() => stream.ended, { what: 'the stream to end', timeoutMs: 5000 });
    await stack.restart(gateway, 'SIGTERM');
    // The browser reconnects (EventSource) to the new gateway: the stream works again.
    const again = new EventReader(await live(carol, code));
    await visit(code, '8.8.8.8', CHROME_WINDOWS);
    await waitFor(() => again.visits().length === 1, { what: 'a live visit after the restart' });
  });

  it('exports every visit as CSV that reads back', async () => {
    const code = await newLink(carol);
    await visit(code, '8.8.8.8', CHROME_WINDOWS, 'https://a.example/');
    await visit(code, '1.1.1.1', GOOGLEBOT);
    await waitFor(async () => (await stats(code)).totals.visits === 2, { what: 'two visits' });
    const response = await carol.api(`${stack.url}/api/stats/${code}/visits.csv`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="${code}-visits.csv"`,
    );
    const text = await response.text();
    expect(text.startsWith(`${CSV_HEADER}\r\n`)).toBe(true);
    const records = parse<Record<string, string>>(text, { columns: true });
    expect(records.map((record) => [record['ip'], record['country'], record['bot']])).toEqual([
      ['8.8.8.8', 'US', 'false'],
      ['1.1.1.1', 'AU', 'true'],
    ]);
    const empty = await carol.api(`${stack.url}/api/stats/${await newLink(carol)}/visits.csv`);
    expect(await empty.text()).toBe(`${CSV_HEADER}\r\n`);
  });

  it("answers someone else's link, an unknown one and a malformed id as not found", async () => {
    const code = await newLink(carol);
    for (const path of [`${code}`, `${code}/visits.csv`]) {
      const response = await dave.api(`${stack.url}/api/stats/${path}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: MESSAGES.urlNotFound });
    }
    expect((await live(dave, code)).status).toBe(404);
    for (const id of ['Zz9Zz9Z', 'no!', 'x'.repeat(50)]) {
      const response = await carol.api(`${stack.url}/api/stats/${encodeURIComponent(id)}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: MESSAGES.urlNotFound });
    }
  });

  it('refuses a bad range, a signed-out caller, a missing header and a cross-site stream', async () => {
    const code = await newLink(carol);
    const range = await carol.api(`${stack.url}/api/stats/${code}?range=1y`);
    expect(range.status).toBe(400);
    expect(await range.json()).toEqual({ message: 'range must be one of 24h, 7d, 30d, all' });

    const stranger = new Browser({ 'x-forwarded-for': '198.18.7.3' });
    for (const path of [code, `${code}/visits.csv`]) {
      const response = await stranger.api(`${stack.url}/api/stats/${path}`);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        message: MESSAGES.unauthorized,
        callBack: expect.stringMatching(/^\/login\?from=/) as unknown,
      });
      expect((await carol.fetch(`${stack.url}/api/stats/${path}`)).status).toBe(403);
    }
    expect((await live(stranger, code)).status).toBe(401);
    const crossSite: Array<Record<string, string>> = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' },
    ];
    for (const headers of crossSite) {
      expect((await live(carol, code, headers)).status).toBe(403);
    }
  });
});
