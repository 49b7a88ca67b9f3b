import { randomUUID } from 'node:crypto';
import { type Client } from 'pg';
import {
  DAY_MS,
  LINKS_QUERY_MESSAGES,
  MESSAGES,
  NEXT_CURSOR_HEADER,
  resolvedLinkSchema,
  type ShortLink,
  type UserData,
} from '@shortener/contracts';
import { InternalClient } from '@shortener/chassis';
import { waitFor, type Stack } from '@shortener/testkit';
import { type Browser } from './support/browser';
import { someAddress, someClient, startUsersStack, type UsersStack } from './support/users-stack';
import { signIn } from './support/sign-in';

// The public API of SPEC.md section 7 through the gateway, against the whole set of
// services from their builds, with real PostgreSQL, Redis and Kafka. The gateway and the
// redirect service trust X-Forwarded-For from loopback here, so each client of a test
// poses as its own address (rate limits count per address).

const run = Date.now();
const USERS = {
  alice: {
    sub: `alice-${run}`,
    name: 'Alice',
    picture: 'https://images.example/a.png',
    email: 'a@example.com',
  },
  bob: {
    sub: `bob-${run}`,
    name: 'Bob',
    picture: 'https://images.example/b.png',
    email: 'b@example.com',
  },
};
const ANONYMOUS_LIMIT = 20;
const CHROME_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

// Jest's matchers are typed `any`; held as unknown they go into expected objects cleanly.
const ANY_STRING: unknown = expect.any(String);
const ANY_NUMBER: unknown = expect.any(Number);
const SHORT_CODE: unknown = expect.stringMatching(/^[0-9A-Za-z]{7}$/);
const WINDOWS: unknown = expect.stringContaining('Windows');

/** An address from the benchmarking range, new for every client of every run. */

const uniqueUrl = (): string => `https://example.com/target/${randomUUID()}?q=1`;

describe('the public API', () => {
  let started: UsersStack;
  let stack: Stack;
  let db: Client;
  let links: InternalClient;
  let alice: Browser;
  let bob: Browser;

  async function shorten(browser: Browser, url: string, days?: string): Promise<Response> {
    const query = new URLSearchParams({ url, ...(days === undefined ? {} : { days }) });
    return browser.api(`${stack.url}/api/shorten/?${query.toString()}`, { method: 'POST' });
  }

  async function shortenOk(browser: Browser, days?: string): Promise<string> {
    const response = await shorten(browser, uniqueUrl(), days);
    expect(response.status).toBe(201);
    return ((await response.json()) as { url: string }).url;
  }

  /** Days until a link expires, as the links service stored it. */
  async function storedDays(code: string): Promise<number> {
    const response = await links.request('GET', `/internal/resolve/${code}`);
    expect(response.status).toBe(200);
    const link = resolvedLinkSchema.parse(response.body);
    return Math.round((link.expiresAt - Date.now()) / DAY_MS);
  }

  async function storedCount(url: string): Promise<number> {
    const { rows } = await db.query<{ count: string }>(
      'SELECT count(*) FROM links.links WHERE original_url = $1',
      [url],
    );
    return Number(rows[0]?.count);
  }

  async function userData(browser: Browser): Promise<UserData> {
    const response = await browser.api(`${stack.url}/api/user`);
    expect(response.status).toBe(200);
    return (await response.json()) as UserData;
  }

  const listed = async (browser: Browser, code: string): Promise<ShortLink | undefined> =>
    (await userData(browser)).urls.find((link) => link.urlID === code);

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: {
        TRUSTED_PROXIES: '127.0.0.0/8,::1',
        SIGN_IN_RATE_LIMIT: '1000',
        SHORTEN_RATE_LIMIT_ANONYMOUS: String(ANONYMOUS_LIMIT),
        SHORTEN_RATE_LIMIT_SIGNED_IN: String(ANONYMOUS_LIMIT * 2),
      },
      serviceEnv: { links: { LOG_LEVEL: 'info' } },
    });
    ({ stack, db } = started);
    links = new InternalClient('links', stack.get('links').url, stack.secret);
    ({ alice, bob } = await started.signedIn(['alice', 'bob']));
  });

  afterAll(async () => {
    await started?.stop();
  });

  describe('shorten', () => {
    it('works anonymously with days=7 and answers loggedIn false', async () => {
      const url = uniqueUrl();
      const response = await shorten(someClient(), url, '7');
      expect(response.status).toBe(201);
      const body = (await response.json()) as { url: string; loggedIn: boolean };
      expect(body).toEqual({ url: SHORT_CODE, loggedIn: false });
      expect(await storedDays(body.url)).toBe(7);
      expect(await storedCount(url)).toBe(1);
    });

    it('refuses days=30 anonymously with 403 and the message, storing nothing', async () => {
      const url = uniqueUrl();
      const response = await shorten(someClient(), url, '30');
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ message: MESSAGES.loginForExpiry });
      expect(await storedCount(url)).toBe(0);
    });

    it.each(['45', 'abc', '-1', ''])('stores a 7-day link for days=%j', async (days) => {
      expect(await storedDays(await shortenOk(someClient(), days))).toBe(7);
    });

    it('stores a 7-day link when days is missing', async () => {
      expect(await storedDays(await shortenOk(someClient()))).toBe(7);
    });

    it('lets a signed-in user pick 30 days, answering loggedIn true, and lists the link', async () => {
      const url = uniqueUrl();
      const response = await shorten(alice, url, '30');
      expect(response.status).toBe(201);
      const { url: code, loggedIn } = (await response.json()) as { url: string; loggedIn: boolean };
      expect(loggedIn).toBe(true);
      expect(await storedDays(code)).toBe(30);
      const link = await listed(alice, code);
      expect(link).toEqual({
        urlID: code,
        originalUrl: url,
        createdAt: ANY_STRING,
        expiresAt: ANY_NUMBER,
        visitCount: 0,
      });
      expect(Math.round((link!.expiresAt - Date.now()) / DAY_MS)).toBe(30);
    });

    it.each([
      ['two url parameters', '?url=https://a.example&url=https://b.example', 'Give one URL only.'],
      ['no url', '?days=7', 'A URL is required.'],
      ['not a URL', '?url=not%20a%20url', undefined],
    ])(
      'answers 400 with a message for %s (input the page never sends)',
      async (_what, query, message) => {
        const before = (await userData(alice)).urls.length;
        const response = await alice.api(`${stack.url}/api/shorten/${query}`, { method: 'POST' });
        expect(response.status).toBe(400);
        const body = (await response.json()) as { message: string };
        if (message) expect(body.message).toBe(message);
        else expect(body.message).toEqual(ANY_STRING);
        expect((await userData(alice)).urls.length).toBe(before);
      },
    );

    // SPEC section 8: the page shows the server's message for a 403 only, so every refusal
    // of a URL the page accepts (any absolute URL) is a 403 with its message.
    it.each([
      [
        'a 10 KB url',
        () => `https://example.com/${'a'.repeat(10_000)}`,
        'The URL is longer than 2048 characters.',
      ],
      ['another scheme', () => 'javascript:alert(1)', 'Only http and https URLs can be shortened.'],
      ['an ftp url', () => 'ftp://example.com/file', 'Only http and https URLs can be shortened.'],
      [
        'a user name and password',
        () => 'https://user:secret@example.com/',
        'URLs with a user name or password cannot be shortened.',
      ],
      [
        'a space inside',
        () => 'https://example.com/a b',
        'The URL must not contain spaces or control characters.',
      ],
      [
        'a short link of this service',
        () => `${stack.url}/r/abcdefg`,
        'Short links of this service cannot be shortened again.',
      ],
    ])('refuses %s with 403 and its message, storing nothing', async (_what, url, message) => {
      for (const browser of [alice, someClient()]) {
        const response = await shorten(browser, url(), '7');
        expect(response.status).toBe(403);
        expect(await response.json()).toEqual({ message });
        expect(await storedCount(url())).toBe(0);
      }
    });

    it('limits anonymous shortening per address, more strictly than signed-in users', async () => {
      const anonymous = someClient();
      for (let i = 0; i < ANONYMOUS_LIMIT; i += 1) await shortenOk(anonymous);
      const url = uniqueUrl();
      const limited = await shorten(anonymous, url);
      // 403, not 429: the page shows the server's message for a 403 only (SPEC section 8).
      expect(limited.status).toBe(403);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await limited.json()) as { message: string }).message).toMatch(
        /^Too many links shortened: please wait \d+ seconds?, or sign in for a higher limit\.$/,
      );
      expect(await storedCount(url)).toBe(0);

      // A signed-in user from an address of their own goes on past the anonymous limit.
      const carol = someClient();
      await signIn(carol, stack.url, 'bob');
      for (let i = 0; i <= ANONYMOUS_LIMIT; i += 1) await shortenOk(carol, '15');
    });
  });

  describe('visitors and ownership', () => {
    let code: string;
    let original: string;
    const visitor = someAddress();

    beforeAll(async () => {
      original = uniqueUrl();
      const response = await shorten(alice, original, '60');
      code = ((await response.json()) as { url: string }).url;
    });

    it("answers 404 'No visitors' before the first visit", async () => {
      const response = await alice.api(`${stack.url}/api/visitors/${code}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: MESSAGES.noVisitors });
    });

    it('counts a visit through /r/{code} and lists it for the owner', async () => {
      const redirect = await fetch(`${stack.url}/r/${code}`, {
        redirect: 'manual',
        headers: { 'user-agent': CHROME_ON_WINDOWS, 'x-forwarded-for': visitor },
      });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe(original);

      const visits = await waitFor(
        async () => {
          const response = await alice.api(`${stack.url}/api/visitors/${code}`);
          return response.status === 200 ? response : false;
        },
        { what: 'the visit to be listed', timeoutMs: 30_000, intervalMs: 250 },
      );
      expect(visits.headers.get(NEXT_CURSOR_HEADER)).toBeNull();
      expect(await visits.json()).toEqual([
        {
          _id: ANY_STRING,
          createdAt: ANY_STRING,
          userAgent: { platform: WINDOWS, browser: 'Chrome' },
          ipAddress: visitor,
          bot: false,
          referrer: null,
          utmSource: null,
          utmMedium: null,
          utmCampaign: null,
        },
      ]);
      expect((await listed(alice, code))?.visitCount).toBe(1);
    });

    it("keeps user B from listing, reading visitors of, or deleting user A's link", async () => {
      expect(await listed(bob, code)).toBeUndefined();

      const visitors = await bob.api(`${stack.url}/api/visitors/${code}`);
      expect(visitors.status).toBe(404);
      expect(await visitors.json()).toEqual({ message: MESSAGES.urlNotFound });

      const removal = await bob.api(`${stack.url}/api/delete/${code}`, { method: 'POST' });
      expect(removal.status).toBe(404);
      expect(await removal.json()).toEqual({ message: MESSAGES.urlNotFound });

      expect(await listed(alice, code)).toBeDefined();
      const redirect = await fetch(`${stack.url}/r/${code}`, {
        method: 'HEAD',
        redirect: 'manual',
      });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe(original);
    });

    it('answers a signed-out delete with 401 and a callBack, changing nothing', async () => {
      const response = await someClient().api(`${stack.url}/api/delete/${code}`, {
        method: 'POST',
        headers: { referer: `${stack.url}/profile/${code}` },
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        message: MESSAGES.unauthorized,
        callBack: `/login?from=${encodeURIComponent(`/profile/${code}`)}`,
      });
      expect(await listed(alice, code)).toBeDefined();
    });

    it.each([
      ['a parent segment, encoded', '..%2Fuser'],
      ['an encoded slash after the code', null],
      ['dots', '%2E%2E'],
      ['a dot', '.'],
      ['200 characters', 'a'.repeat(200)],
      ['Unicode', encodeURIComponent('ünïcødé')],
      ['a NUL byte', null],
      ['the code in the other case', null],
    ])('answers 404 for a urlID with %s, changing nothing', async (_what, given) => {
      const swapped = [...code]
        .map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
        .join('');
      const id =
        given ??
        ({
          'an encoded slash after the code': `${code}%2F..`,
          'a NUL byte': `${code}%00`,
          'the code in the other case': swapped,
        }[_what] as string);
      for (const [method, path] of [
        ['POST', `/api/delete/${id}`],
        ['GET', `/api/visitors/${id}`],
      ] as const) {
        const response = await alice.api(`${stack.url}${path}`, { method });
        expect({ path, status: response.status }).toEqual({ path, status: 404 });
        expect(await response.json()).toEqual({ message: ANY_STRING });
      }
      expect(await listed(alice, code)).toBeDefined();
    });

    it.each([
      ['a cursor with spaces', '?cursor=a%20b'],
      ['two cursors', '?cursor=a&cursor=b'],
      ['a 300-character cursor', `?cursor=${'c'.repeat(300)}`],
    ])('answers 400 for %s', async (_what, query) => {
      const response = await alice.api(`${stack.url}/api/visitors/${code}${query}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ message: ANY_STRING });
    });

    it('says a cursor that decodes to nothing is not valid in the words of the list of links', async () => {
      for (const path of [`/api/visitors/${code}?cursor=zzz`, '/api/links?cursor=zzz']) {
        const response = await alice.api(`${stack.url}${path}`);
        expect({ path, status: response.status }).toEqual({ path, status: 400 });
        expect(await response.json()).toEqual({ message: LINKS_QUERY_MESSAGES.cursor });
      }
    });

    it("deletes the owner's link: gone from the list, its visitors and its redirect", async () => {
      const response = await alice.api(`${stack.url}/api/delete/${code}`, { method: 'POST' });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ loggedIn: true });
      expect(await listed(alice, code)).toBeUndefined();
      const visitors = await alice.api(`${stack.url}/api/visitors/${code}`);
      expect(visitors.status).toBe(404);
      await waitFor(
        async () => (await fetch(`${stack.url}/r/${code}`, { redirect: 'manual' })).status === 404,
        { what: 'the redirect to stop', timeoutMs: 2000 },
      );
    });
  });

  describe('the edge', () => {
    let target: string;

    beforeAll(async () => {
      target = await shortenOk(alice, '15');
    });

    const calls = (): Array<[string, string]> => [
      ['GET', '/api/user'],
      ['POST', `/api/shorten/?url=${encodeURIComponent(uniqueUrl())}&days=15`],
      ['POST', `/api/delete/${target}`],
      ['GET', `/api/visitors/${target}`],
      ['GET', '/api/no-such-call'],
    ];

    it.each([
      ['missing', undefined, MESSAGES.missingRequestedWith],
      ['wrong', 'fetch', 'The X-Requested-With header must be XMLHttpRequest'],
    ])(
      'answers 403 on every /api route when X-Requested-With is %s, changing nothing',
      async (_what, value, message) => {
        const before = await userData(alice);
        for (const [method, path] of calls()) {
          const response = await alice.fetch(`${stack.url}${path}`, {
            method,
            headers: value === undefined ? {} : { 'x-requested-with': value },
          });
          expect({ path, status: response.status }).toEqual({ path, status: 403 });
          expect(await response.json()).toEqual({ message });
        }
        expect(await userData(alice)).toEqual(before);
        expect(await listed(alice, target)).toBeDefined();
      },
    );

    it('answers an unknown /api route with 404 JSON', async () => {
      const response = await alice.api(`${stack.url}/api/no-such-call`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: ANY_STRING });
    });

    it.each(['/', '/profile/abc1234', '/api/user', '/r/zzzzzzz', '/login', '/api/docs/'])(
      'puts the security headers on %s',
      async (path) => {
        const response = await alice.fetch(`${stack.url}${path}`);
        const csp = response.headers.get('content-security-policy') ?? '';
        expect(csp).toContain("frame-ancestors 'none'");
        // The redirect service's own pages allow no script at all.
        expect(csp).toMatch(/script-src 'self'|default-src 'none'/);
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(['same-origin', 'no-referrer']).toContain(response.headers.get('referrer-policy'));
        expect(response.headers.get('x-frame-options')).toBe('DENY');
      },
    );

    it('serves the page for page paths and 404 for a missing asset', async () => {
      for (const path of ['/', '/profile', '/profile/abc1234', '/tc']) {
        const response = await fetch(`${stack.url}${path}`);
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        expect(await response.text()).toMatch(/<div id="root"[ >]/);
      }
      expect((await fetch(`${stack.url}/assets/no-such-file.js`)).status).toBe(404);
    });

    it('carries the request id to the services behind it', async () => {
      const requestId = `api-test-${randomUUID()}`;
      const response = await someClient().api(
        `${stack.url}/api/shorten/?url=${encodeURIComponent(uniqueUrl())}`,
        { method: 'POST', headers: { 'x-request-id': requestId } },
      );
      expect(response.status).toBe(201);
      expect(response.headers.get('x-request-id')).toBe(requestId);
      await waitFor(() => stack.get('links').output().includes(requestId), {
        what: 'the links service to log the request id',
        timeoutMs: 5000,
      });
    });

    it('serves the OpenAPI description and Swagger UI', async () => {
      const document = (await (await fetch(`${stack.url}/api/docs/openapi.json`)).json()) as {
        openapi: string;
        paths: Record<string, unknown>;
      };
      expect(document.openapi).toMatch(/^3\./);
      expect(Object.keys(document.paths).sort()).toEqual([
        '/api/analytics',
        '/api/analytics/live',
        '/api/analytics/visits.csv',
        '/api/delete/{urlID}',
        '/api/domains',
        '/api/domains/{host}',
        '/api/domains/{host}/restore',
        '/api/domains/{host}/verify',
        '/api/keys',
        '/api/keys/{keyId}/revoke',
        '/api/links',
        '/api/links/{urlID}',
        '/api/links/{urlID}/restore',
        '/api/shorten/',
        '/api/stats/{urlID}',
        '/api/stats/{urlID}/live',
        '/api/stats/{urlID}/visits.csv',
        '/api/user',
        '/api/visitors/{urlID}',
        '/r/{code}',
      ]);
      const ui = await fetch(`${stack.url}/api/docs/`);
      expect(ui.status).toBe(200);
      expect(await ui.text()).toContain('swagger-ui');
    });
  });
});
