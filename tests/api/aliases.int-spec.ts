import { randomInt, randomUUID } from 'node:crypto';
import { type Client } from 'pg';
import {
  ALIAS_MESSAGES,
  BULK_MESSAGES,
  MESSAGES,
  TARGET_URL_MESSAGES,
  type BulkLinksResponse,
  type UserData,
} from '@shortener/contracts';
import { waitFor, type Stack } from '@shortener/testkit';
import { type Browser } from './support/browser';
import { someAddress, someClient, startUsersStack, type UsersStack } from './support/users-stack';

// Issue 28: a back-half of one's own (an alias) on POST /api/shorten/, and many links in one
// call (POST /api/links), through the gateway to every service from their builds, with real
// PostgreSQL, Redis and Kafka.

const run = `${Date.now()}-${randomInt(1_000_000)}`;
const user = (name: string) => ({
  sub: `alias-${name}-${run}`,
  name,
  picture: `https://images.example/${name}.png`,
  email: `${name}@example.com`,
});
const USERS = {
  alice: user('alice'),
  bob: user('bob'),
  carol: user('carol'),
  dave: user('dave'),
  erin: user('erin'),
};
/** Links a signed-in user may shorten per window: the bulk limits are counted against it. */
const SIGNED_IN_LIMIT = 150;
const CHROME_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const uniqueUrl = (): string => `https://example.com/alias-target/${randomUUID()}`;
/** An alias no run has used: letters, digits, - and _. */
const freshAlias = (stem = 'link'): string =>
  `${stem}-${randomUUID().replace(/-/g, '').slice(0, 12)}_${randomInt(1000)}`;

describe('aliases and bulk links', () => {
  let started: UsersStack;
  let stack: Stack;
  let db: Client;
  let alice: Browser;
  let bob: Browser;
  let carol: Browser;
  let dave: Browser;
  let erin: Browser;

  function shorten(browser: Browser, url: string, params: Record<string, string> = {}) {
    const query = new URLSearchParams({ url, ...params });
    return browser.api(`${stack.url}/api/shorten/?${query.toString()}`, { method: 'POST' });
  }

  function bulk(browser: Browser, body: string, headers: Record<string, string> = {}) {
    return browser.api(`${stack.url}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  }

  async function stored(code: string): Promise<{ code: string; original_url: string }[]> {
    const { rows } = await db.query<{ code: string; original_url: string }>(
      'SELECT code, original_url FROM links.links WHERE lower(code) = lower($1)',
      [code],
    );
    return rows;
  }

  /** The links under a code that are not deleted (a deleted one waits out its undo window). */
  async function live(code: string): Promise<{ code: string; original_url: string }[]> {
    const { rows } = await db.query<{ code: string; original_url: string }>(
      'SELECT code, original_url FROM links.links WHERE lower(code) = lower($1) AND deleted_at IS NULL',
      [code],
    );
    return rows;
  }

  async function storedForUrl(url: string): Promise<number> {
    const { rows } = await db.query<{ count: string }>(
      'SELECT count(*) FROM links.links WHERE original_url = $1',
      [url],
    );
    return Number(rows[0]?.count);
  }

  async function listedCodes(browser: Browser): Promise<string[]> {
    const response = await browser.api(`${stack.url}/api/user`);
    expect(response.status).toBe(200);
    return ((await response.json()) as UserData).urls.map((link) => link.urlID);
  }

  async function expectRefused(response: Response, status: number, message: string) {
    expect({ status: response.status, body: await response.json() }).toEqual({
      status,
      body: { message },
    });
  }

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: {
        TRUSTED_PROXIES: '127.0.0.0/8,::1',
        SIGN_IN_RATE_LIMIT: '1000',
        SHORTEN_RATE_LIMIT_SIGNED_IN: String(SIGNED_IN_LIMIT),
      },
    });
    ({ stack, db } = started);
    ({ alice, bob, carol, dave, erin } = await started.signedIn([
      'alice',
      'bob',
      'carol',
      'dave',
      'erin',
    ]));
  });

  afterAll(async () => {
    await started?.stop();
  });

  describe('POST /api/shorten/ with an alias', () => {
    it('is a code like any other: redirect, list, visitors, stats and delete', async () => {
      const alias = freshAlias('Summer_Sale');
      const url = uniqueUrl();
      const response = await shorten(alice, url, { days: '30', alias });
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual({ url: alias, loggedIn: true });
      expect(await listedCodes(alice)).toContain(alias);

      // Through the gateway's /r/ and straight at the redirect service.
      for (const origin of [stack.url, stack.get('redirect').url]) {
        const redirect = await fetch(`${origin}/r/${alias}`, {
          redirect: 'manual',
          headers: { 'user-agent': CHROME_ON_WINDOWS, 'x-forwarded-for': someAddress() },
        });
        expect({ origin, status: redirect.status }).toEqual({ origin, status: 302 });
        expect(redirect.headers.get('location')).toBe(url);
      }

      const visitors = await waitFor(
        async () => {
          const answer = await alice.api(`${stack.url}/api/visitors/${alias}`);
          if (answer.status !== 200) return false;
          const visits = (await answer.json()) as unknown[];
          return visits.length === 2 ? visits : false;
        },
        { what: 'the visits of the alias to be listed', timeoutMs: 30_000, intervalMs: 250 },
      );
      expect(visitors).toHaveLength(2);
      const stats = await alice.api(`${stack.url}/api/stats/${alias}?range=7d`);
      expect(stats.status).toBe(200);
      expect(await stats.json()).toMatchObject({ urlID: alias, totals: { visits: 2 } });
      const csv = await alice.api(`${stack.url}/api/stats/${alias}/visits.csv`);
      expect(csv.status).toBe(200);
      expect((await csv.text()).trim().split('\n')).toHaveLength(3);

      // Another user sees none of it.
      expect((await bob.api(`${stack.url}/api/visitors/${alias}`)).status).toBe(404);
      expect((await bob.api(`${stack.url}/api/delete/${alias}`, { method: 'POST' })).status).toBe(
        404,
      );

      const removal = await alice.api(`${stack.url}/api/delete/${alias}`, { method: 'POST' });
      expect(removal.status).toBe(200);
      expect(await listedCodes(alice)).not.toContain(alias);
      await waitFor(
        async () => (await fetch(`${stack.url}/r/${alias}`, { redirect: 'manual' })).status === 404,
        { what: 'the alias to stop redirecting', timeoutMs: 2000 },
      );
    });

    it('answers a generated code when the alias is empty', async () => {
      const response = await shorten(alice, uniqueUrl(), { alias: '' });
      expect(response.status).toBe(201);
      expect(((await response.json()) as { url: string }).url).toMatch(/^[0-9A-Za-z]{7}$/);
    });

    it("refuses a signed-out alias with 403 'Login required to choose an alias.', storing nothing", async () => {
      const alias = freshAlias();
      const url = uniqueUrl();
      await expectRefused(
        await shorten(someClient(), url, { alias }),
        403,
        ALIAS_MESSAGES.loginRequired,
      );
      expect(await stored(alias)).toEqual([]);
      expect(await storedForUrl(url)).toBe(0);
    });

    it.each([
      ['3 characters', 'abc'],
      ['51 characters', 'a'.repeat(51)],
      ['a dot', 'my.link'],
      ['a space', 'my link'],
      ['a slash', 'my/link'],
      ['a letter outside A-Z', 'caf\u00e9-link'],
      ['a percent sign', 'my%link'],
    ])('refuses an alias with %s with 403 and the rule, storing nothing', async (_what, alias) => {
      const url = uniqueUrl();
      await expectRefused(await shorten(alice, url, { alias }), 403, ALIAS_MESSAGES.format);
      expect(await storedForUrl(url)).toBe(0);
    });

    it('accepts 4 and 50 characters, and every character allowed', async () => {
      for (const alias of [
        Array.from({ length: 4 }, () => BASE62[randomInt(62)]).join(''),
        `a-_${randomUUID().replace(/-/g, '')}`.padEnd(50, 'Z').slice(0, 50),
      ]) {
        const response = await shorten(alice, uniqueUrl(), { alias });
        expect({ status: response.status, body: await response.json() }).toEqual({
          status: 201,
          body: { url: alias, loggedIn: true },
        });
      }
    });

    it.each([
      'login',
      'LOGOUT',
      'Profile',
      'auth',
      'assets',
      'privacy_policy',
      'healthz',
      'Readyz',
    ])('refuses the reserved word %s with 403, storing nothing', async (alias) => {
      const url = uniqueUrl();
      await expectRefused(await shorten(alice, url, { alias }), 403, ALIAS_MESSAGES.reserved);
      expect(await storedForUrl(url)).toBe(0);
    });

    it('refuses two aliases with 400', async () => {
      const response = await alice.api(
        `${stack.url}/api/shorten/?url=${encodeURIComponent(uniqueUrl())}&alias=abcd&alias=efgh`,
        { method: 'POST' },
      );
      await expectRefused(response, 400, ALIAS_MESSAGES.oneOnly);
    });

    it("refuses a taken alias, in any letter case, with 409 'Alias already taken'", async () => {
      const alias = freshAlias('Taken');
      const first = uniqueUrl();
      expect((await shorten(alice, first, { alias })).status).toBe(201);
      for (const [browser, asked] of [
        [alice, alias],
        [bob, alias],
        [bob, alias.toLowerCase()],
        [bob, alias.toUpperCase()],
      ] as const) {
        const url = uniqueUrl();
        await expectRefused(
          await shorten(browser, url, { alias: asked }),
          409,
          ALIAS_MESSAGES.taken,
        );
        expect(await storedForUrl(url)).toBe(0);
      }
      expect(await stored(alias)).toEqual([{ code: alias, original_url: first }]);
    });

    it('refuses an alias that differs only in case from a generated code', async () => {
      const response = await shorten(alice, uniqueUrl());
      const code = ((await response.json()) as { url: string }).url;
      const swapped = [...code]
        .map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
        .join('');
      for (const alias of [code, swapped]) {
        await expectRefused(await shorten(bob, uniqueUrl(), { alias }), 409, ALIAS_MESSAGES.taken);
      }
    });

    it('lets exactly one of two users racing for an alias have it', async () => {
      for (let round = 0; round < 5; round += 1) {
        const alias = freshAlias('race');
        // The second asks in another letter case: the same alias all the same.
        const answers = await Promise.all([
          shorten(alice, uniqueUrl(), { alias }),
          shorten(bob, uniqueUrl(), { alias: alias.toUpperCase() }),
        ]);
        const statuses = answers.map((answer) => answer.status).sort();
        expect({ round, statuses }).toEqual({ round, statuses: [201, 409] });
        const loser = answers.find((answer) => answer.status === 409)!;
        expect(await loser.json()).toEqual({ message: ALIAS_MESSAGES.taken });
        expect(await stored(alias)).toHaveLength(1);
      }
    });

    it("keeps a deleted link's code from being chosen again, by anyone, in any case", async () => {
      const alias = freshAlias('Gone');
      expect((await shorten(alice, uniqueUrl(), { alias })).status).toBe(201);
      const generated = ((await (await shorten(alice, uniqueUrl())).json()) as { url: string }).url;
      for (const code of [alias, generated]) {
        expect(
          (await alice.api(`${stack.url}/api/delete/${code}`, { method: 'POST' })).status,
        ).toBe(200);
      }
      for (const [browser, asked] of [
        [alice, alias],
        [bob, alias],
        [bob, alias.toLowerCase()],
        [bob, generated],
      ] as const) {
        const url = uniqueUrl();
        await expectRefused(
          await shorten(browser, url, { alias: asked }),
          409,
          ALIAS_MESSAGES.recentlyDeleted,
        );
        expect(await storedForUrl(url)).toBe(0);
      }
      expect((await fetch(`${stack.url}/r/${alias}`, { redirect: 'manual' })).status).toBe(404);
    });
    it('never hands a code over to an alias asked for while its link is being deleted', async () => {
      for (let round = 0; round < 15; round += 1) {
        const alias = freshAlias('handover');
        expect((await shorten(alice, uniqueUrl(), { alias })).status).toBe(201);
        // Erin asks for it just before, during and just after Alice's deletion.
        const asks = [0, 1, 2, 4].map(async (delayMs) => {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          return (await shorten(erin, uniqueUrl(), { alias })).status;
        });
        const removal = alice.api(`${stack.url}/api/delete/${alias}`, { method: 'POST' });
        expect((await removal).status).toBe(200);
        expect({ round, statuses: await Promise.all(asks) }).toEqual({
          round,
          statuses: [409, 409, 409, 409],
        });
        expect(await live(alias)).toEqual([]);
      }
    });
  });

  describe('POST /api/links', () => {
    it('creates each link it can and answers each one in order, with shorten rules', async () => {
      const taken = freshAlias('bulk-taken');
      expect((await shorten(bob, uniqueUrl(), { alias: taken })).status).toBe(201);
      const alias = freshAlias('bulk');
      const urls = Array.from({ length: 4 }, uniqueUrl);
      const items = [
        { url: urls[0], days: 30 },
        { url: urls[1], days: '60', alias },
        { url: 'javascript:alert(1)' },
        { url: urls[2], alias: 'login' },
        { url: urls[3], alias: taken.toUpperCase() },
        { days: 7 },
        { url: `https://example.com/${'a'.repeat(3000)}` },
        { url: uniqueUrl(), alias: 'no' },
      ];
      const response = await bulk(alice, JSON.stringify(items));
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as BulkLinksResponse;
      expect(results).toEqual([
        { status: 201, url: expect.stringMatching(/^[0-9A-Za-z]{7}$/) as unknown },
        { status: 201, url: alias },
        { status: 403, message: TARGET_URL_MESSAGES.scheme },
        { status: 403, message: ALIAS_MESSAGES.reserved },
        { status: 409, message: ALIAS_MESSAGES.taken },
        { status: 400, message: TARGET_URL_MESSAGES.required },
        { status: 403, message: TARGET_URL_MESSAGES.tooLong },
        { status: 403, message: ALIAS_MESSAGES.format },
      ]);
      const listed = await listedCodes(alice);
      expect(listed).toEqual(expect.arrayContaining([results[0]!.url, alias]));
      for (const url of urls.slice(2)) expect(await storedForUrl(url)).toBe(0);

      const { rows } = await db.query<{ code: string; days: number }>(
        `SELECT code, round(extract(epoch FROM expires_at - created_at) / 86400)::int AS days
         FROM links.links WHERE code = ANY($1) ORDER BY days`,
        [[results[0]!.url, alias]],
      );
      expect(rows).toEqual([
        { code: results[0]!.url, days: 30 },
        { code: alias, days: 60 },
      ]);
      const redirect = await fetch(`${stack.url}/r/${alias}`, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe(urls[1]);
    });

    it('answers each of 100 links', async () => {
      const items = Array.from({ length: 100 }, () => ({ url: uniqueUrl() }));
      const response = await bulk(bob, JSON.stringify(items));
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as BulkLinksResponse;
      expect(results).toHaveLength(100);
      expect(new Set(results.map((result) => result.status))).toEqual(new Set([201]));
      expect(new Set(results.map((result) => result.url)).size).toBe(100);
    });

    it.each([
      [
        '101 links',
        () => JSON.stringify(Array.from({ length: 101 }, () => ({ url: uniqueUrl() }))),
        BULK_MESSAGES.tooMany,
      ],
      ['an object', () => JSON.stringify({ url: uniqueUrl() }), BULK_MESSAGES.notArray],
      ['an empty array', () => '[]', BULK_MESSAGES.notArray],
      [
        'a link that is not an object',
        () => JSON.stringify([{ url: uniqueUrl() }, 'https://example.com']),
        BULK_MESSAGES.notObject,
      ],
    ])('refuses %s with 400, creating nothing', async (_what, body, message) => {
      const before = await listedCodes(alice);
      await expectRefused(await bulk(alice, body()), 400, message);
      expect(await listedCodes(alice)).toEqual(before);
    });

    it('refuses a body that is not JSON with 400, and one that is not labelled JSON', async () => {
      const before = await listedCodes(alice);
      expect((await bulk(alice, '[{"url": ')).status).toBe(400);
      const unlabelled = await bulk(alice, JSON.stringify([{ url: uniqueUrl() }]), {
        'content-type': 'text/plain',
      });
      await expectRefused(unlabelled, 400, BULK_MESSAGES.notArray);
      expect(await listedCodes(alice)).toEqual(before);
    });

    it('reads a body of 100 links of the longest URLs (over the 16 KB of other calls)', async () => {
      const items = Array.from({ length: 100 }, () => ({
        url: `https://example.com/${randomUUID()}/${'c'.repeat(1990)}`,
      }));
      const body = JSON.stringify(items);
      expect(body.length).toBeGreaterThan(200 * 1024);
      const response = await bulk(dave, body);
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as BulkLinksResponse;
      expect(results.filter((result) => result.status === 201)).toHaveLength(100);
    });

    it('refuses a body over 256 KB with 413, creating nothing', async () => {
      const before = await listedCodes(alice);
      const items = Array.from({ length: 100 }, () => ({
        url: `https://example.com/${'b'.repeat(2000)}`,
        alias: 'x'.repeat(700),
      }));
      const body = JSON.stringify(items);
      expect(body.length).toBeGreaterThan(256 * 1024);
      expect((await bulk(alice, body)).status).toBe(413);
      expect(await listedCodes(alice)).toEqual(before);
    });

    it('answers a signed-out call with 401, creating nothing', async () => {
      const url = uniqueUrl();
      const response = await bulk(someClient(), JSON.stringify([{ url }]));
      expect(response.status).toBe(401);
      expect(((await response.json()) as { message: string }).message).toBe(MESSAGES.unauthorized);
      expect(await storedForUrl(url)).toBe(0);
    });

    it('needs X-Requested-With like every call', async () => {
      const url = uniqueUrl();
      const response = await alice.fetch(`${stack.url}/api/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([{ url }]),
      });
      expect(response.status).toBe(403);
      expect(await storedForUrl(url)).toBe(0);
    });

    it('counts each link against the shorten limit: those past it are answered 429', async () => {
      const first = Array.from({ length: 100 }, () => ({ url: uniqueUrl() }));
      const firstAnswer = await bulk(carol, JSON.stringify(first));
      expect(firstAnswer.status).toBe(200);
      expect(firstAnswer.headers.get('retry-after')).toBeNull();

      const second = Array.from({ length: 100 }, () => ({ url: uniqueUrl() }));
      const secondAnswer = await bulk(carol, JSON.stringify(second));
      expect(secondAnswer.status).toBe(200);
      expect(Number(secondAnswer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const { results } = (await secondAnswer.json()) as BulkLinksResponse;
      const within = SIGNED_IN_LIMIT - first.length;
      expect(results.slice(0, within).every((result) => result.status === 201)).toBe(true);
      for (const result of results.slice(within)) {
        expect(result).toEqual({
          status: 429,
          message: expect.stringMatching(
            /^Too many links shortened: please wait \d+ seconds?/,
          ) as unknown,
        });
      }
      for (const item of second.slice(within)) expect(await storedForUrl(item.url)).toBe(0);

      // Nothing left: the whole call is refused, and so is a single shorten.
      const url = uniqueUrl();
      const refused = await bulk(carol, JSON.stringify([{ url }]));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await shorten(carol, url)).status).toBe(403);
      expect(await storedForUrl(url)).toBe(0);
    });
  });
});
