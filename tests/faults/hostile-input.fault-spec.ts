import { randomUUID } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { Client } from 'pg';
import { InternalClient, type CallerIdentity } from '@shortener/chassis';
import { SESSION_COOKIE, type InternalLink, type UserData } from '@shortener/contracts';
import {
  startOAuth2Mock,
  startStack,
  testServers,
  waitFor,
  type OAuth2Mock,
  type Stack,
} from '@shortener/testkit';
import { Browser } from '../api/support/browser';
import { signIn } from '../api/support/sign-in';
import { startGroupAtEnd } from './support/kafka-control';
import {
  header,
  NO_ANSWER,
  rawRequest,
  TIMED_OUT,
  type RawRequest,
  type RawResponse,
} from './support/raw-http';

// Hostile input, property-based, against the running redirect service, the links service's
// internal API and the gateway: arbitrary URLs, codes, return paths, cookies, header values,
// oversized and repeated parameters. Whatever comes in: no 5xx, no redirect off-site except
// /r/{code} to its stored URL (and /login to the sign-in provider), no input echoed raw into
// HTML, no user reading, listing or deleting another's link, nothing stored on a refusal.
// Seeded and reproducible: FAULTS_SEED=<the printed seed> repeats a run.

/** A host short links are also served on (SHORT_LINK_HOSTS), besides the gateway's origin. */
const SHORT_LINK_HOST = 'sho.rt';

const SEED = process.env['FAULTS_SEED'] ? Number(process.env['FAULTS_SEED']) : Date.now() % 2 ** 31;
let cases = 0;

const short = (text: string, max = 400): string =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;

/**
 * Settings of one property: the run's seed, its share of the cases, and a report that keeps
 * a 40 KB counterexample from burying the reason it failed.
 */
function runs<Ts>(numRuns: number): fc.Parameters<Ts> {
  cases += numRuns;
  return {
    seed: SEED,
    numRuns,
    reporter: (details) => {
      if (!details.failed) return;
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : '';
      throw new Error(
        `property failed after ${details.numRuns} cases, shrunk ${details.numShrinks} times ` +
          `(FAULTS_SEED=${details.seed}, path "${details.counterexamplePath ?? ''}")\n` +
          `counterexample: ${short(fc.stringify(details.counterexample))}\n${short(error, 2000)}`,
      );
    },
  };
}

/** Answers per status, per test: shows the cases reached past validation, not just that none failed. */
const statuses = new Map<string, Map<number, number>>();
function note(status: number): void {
  const test = expect.getState().currentTestName ?? '';
  const counts = statuses.get(test) ?? new Map<number, number>();
  counts.set(status, (counts.get(status) ?? 0) + 1);
  statuses.set(test, counts);
}

// ---------------------------------------------------------------- what hostile input looks like

const XSS = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg/onload=alert(1)>",
  '</title><script>alert(1)</script>',
  '<a href="javascript:alert(1)">x</a>',
];

const SPECIAL = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  ' javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  '//evil.example/',
  '/\\evil.example',
  '\\\\evil.example',
  'https:evil.example',
  'https:/evil.example',
  'https:///evil.example',
  'https://user:pass@example.com/',
  'https://@example.com/',
  'https://example.com\r\nSet-Cookie: a=b',
  'https://example.com/%0d%0aLocation:%20https://evil.example',
  'https://example.com/\u2028\u2029',
  'https://例え.jp/パス',
  'https://xn--r8jz45g.jp/',
  'http://[::1]/',
  'http://127.0.0.1/',
  'http://0x7f.1/',
  'https://example.com:99999/',
  'https://example.com#<script>',
  '%00',
  '\u0000',
  '',
  ' ',
];

/** Strings of every kind: any code point, control characters, unicode, markup, sizes. */
const text: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.string({ unit: 'grapheme', maxLength: 32 }),
  fc.string({ maxLength: 64 }),
  fc.constantFrom(...SPECIAL),
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...XSS), fc.string({ maxLength: 8 }))
    .map((parts) => parts.join('')),
);

/** Things that look more or less like URLs, each piece of them possibly hostile. */
const urlLike: fc.Arbitrary<string> = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc
    .record({
      scheme: fc.constantFrom('http', 'https', 'HTTPS', 'javascript', 'data', 'ftp', 'ws', ' http'),
      separator: fc.constantFrom('://', ':', ':/', ':///', ':\\\\', '://\\'),
      userinfo: fc.constantFrom('', 'user@', 'user:pass@', ':@', '%40@'),
      host: fc.oneof(
        fc.domain(),
        fc.constantFrom('例え.jp', 'ëxample.com', 'localhost', '127.0.0.1', '[::1]', 'a..b', ''),
      ),
      rest: fc.oneof(text, fc.webPath()),
    })
    .map((u) => `${u.scheme}${u.separator}${u.userinfo}${u.host}/${u.rest}`),
  fc.nat({ max: 12_000 }).map((n) => `https://example.com/${'a'.repeat(n)}`),
  text,
);

/** Percent-encodes every byte but the unreserved ones, whatever the string holds. */
function encode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Header values of every kind but CR and LF: those end the header line, which makes another
 * request (smuggling) rather than a strange value, and leaves our connection waiting.
 */
const headerText = text.map((value) => value.replace(/[\r\n]/g, ' '));

/** Node's limit on a request's head (request line and headers), in bytes. */
const MAX_HEAD_BYTES = 16 * 1024;

/** The input as a client would put it in a target: encoded, or raw (then often malformed). */
const inTarget = (value: string, raw: boolean): string => (raw ? value : encode(value));

// ---------------------------------------------------------------- what must hold of any answer

interface Rules {
  /** The raw input, checked against HTML bodies. */
  input: string;
  /** May the answer redirect to this URL? Default: only to the same origin. */
  mayRedirectTo?: (location: URL) => boolean;
}

function echoes(response: RawResponse, input: string): boolean {
  const html = (header(response, 'content-type') ?? '').includes('text/html');
  // Short inputs are found in any page ("<p"); 6 characters of markup are not, by chance.
  return html && /[<>]/.test(input) && input.length >= 6 && response.body.includes(input);
}

function checkAnswer(response: RawResponse, origin: string, rules: Rules): void {
  const context = `input ${JSON.stringify(rules.input).slice(0, 300)}: ${response.status}`;
  if (response.status === TIMED_OUT) throw new Error(`${context}: no answer in time`);
  // A server may drop an oversized request (431) before the client has written all of it.
  if (response.status === NO_ANSWER && response.requestBytes <= MAX_HEAD_BYTES) {
    throw new Error(`${context}: connection closed without an answer`);
  }
  if (response.status >= 500)
    throw new Error(`${context}: server error ${response.body.slice(0, 300)}`);
  if (response.status >= 300 && response.status < 400) {
    const location = header(response, 'location') ?? '';
    let target: URL;
    try {
      target = new URL(location, origin);
    } catch {
      throw new Error(`${context}: unparseable Location ${JSON.stringify(location)}`);
    }
    const allowed = rules.mayRedirectTo ?? ((url: URL) => url.origin === new URL(origin).origin);
    if (!allowed(target)) throw new Error(`${context}: redirects to ${JSON.stringify(location)}`);
  }
  if (echoes(response, rules.input)) throw new Error(`${context}: input echoed into HTML`);
}

/**
 * Where the gateway may send a browser: its own origin, or the sign-in provider's
 * authorization endpoint with a callback to its own origin (not one a header chose).
 */
function toUsOrProvider(location: URL, origin: string, authorize: URL): boolean {
  if (location.origin === new URL(origin).origin) return true;
  if (location.origin !== authorize.origin || location.pathname !== authorize.pathname)
    return false;
  const callback = location.searchParams.get('redirect_uri');
  return callback === null || new URL(callback).origin === new URL(origin).origin;
}

/** The first value of a cookie in a Cookie header, as cookie parsers read it. */
function firstCookie(headerValue: string, name: string): string | undefined {
  for (const part of headerValue.split(';')) {
    const equals = part.indexOf('=');
    if (equals < 0 || part.slice(0, equals).trim() !== name) continue;
    const value = part.slice(equals + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------- the suite

const run = randomUUID().slice(0, 8);
const USERS = {
  alice: {
    sub: `hostile-alice-${run}`,
    name: 'Alice',
    picture: 'https://i.example/a.png',
    email: 'a@example.com',
  },
  // Signed in for the any-route property, which also calls /logout.
  carol: {
    sub: `hostile-carol-${run}`,
    name: 'Carol',
    picture: 'https://i.example/c.png',
    email: 'c@example.com',
  },
  bob: {
    sub: `hostile-bob-${run}`,
    name: 'Bob',
    picture: 'https://i.example/b.png',
    email: 'b@example.com',
  },
};

describe('hostile input', () => {
  let provider: OAuth2Mock | undefined;
  let stack: Stack | undefined;
  let db: Client | undefined;
  let links: InternalClient;
  let alice: Browser;
  let bob: Browser;
  let carol: Browser;
  let gateway: { origin: string; port: number };
  let redirectPort: number;
  /** Links whose stored URL is known: code -> the Location /r/{code} must answer. */
  const known = new Map<string, string>();

  const ownedCount = async (owner: string): Promise<number> => {
    const { rows } = await db!.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM links.links WHERE owner_id = $1',
      [owner],
    );
    return rows[0]?.n ?? 0;
  };

  const cookieHeader = (browser: Browser): [string, string] => [
    'Cookie',
    `${SESSION_COOKIE}=${browser.cookie(SESSION_COOKIE)?.value ?? ''}`,
  ];

  const api = (
    request: RawRequest & { as?: Browser; requestedWith?: boolean },
  ): Promise<RawResponse> =>
    rawRequest(gateway.port, {
      ...request,
      headers: [
        ...(request.requestedWith === false
          ? []
          : [['X-Requested-With', 'XMLHttpRequest'] as const]),
        ...(request.as ? [cookieHeader(request.as)] : []),
        ...(request.headers ?? []),
      ],
    });

  async function createInternal(identity: CallerIdentity, url: string): Promise<InternalLink> {
    const response = await links.request<InternalLink>('POST', '/internal/links', {
      identity,
      body: { url, days: 7 },
    });
    if (response.status !== 201) throw new Error(`not created: ${response.status}`);
    known.set(response.body.urlID, new URL(response.body.originalUrl).href);
    return response.body;
  }

  async function shortenAs(browser: Browser, url: string): Promise<string> {
    const response = await api({
      method: 'POST',
      target: `/api/shorten/?url=${encode(url)}`,
      as: browser,
    });
    if (response.status !== 201)
      throw new Error(`not shortened: ${response.status} ${response.body}`);
    const code = (JSON.parse(response.body) as { url: string }).url;
    known.set(code, new URL(url).href);
    return code;
  }

  beforeAll(async () => {
    process.stdout.write(`\nhostile inputs: seed ${SEED} (FAULTS_SEED=${SEED} repeats this run)\n`);
    provider = await startOAuth2Mock(USERS);
    const group = `faults-hostile-${run}`;
    await startGroupAtEnd(group);
    stack = await startStack({
      env: {
        // Limits are not what is tested here; a refusal by them would hide the answer under test.
        API_RATE_LIMIT: '1000000',
        SHORTEN_RATE_LIMIT_ANONYMOUS: '1000000',
        SHORTEN_RATE_LIMIT_SIGNED_IN: '1000000',
        SIGN_IN_RATE_LIMIT: '1000000',
        // Random codes from one address would spend the redirect's miss budget.
        REDIRECT_MISS_BUDGET: '1000000',
        REDIRECT_MISS_BURST: '1000000',
      },
      serviceEnv: {
        auth: provider.env,
        analytics: { KAFKA_CONSUMER_GROUP: group },
        links: { SHORT_LINK_HOSTS: SHORT_LINK_HOST },
      },
    });
    gateway = { origin: stack.url, port: Number(new URL(stack.url).port) };
    redirectPort = stack.services.redirect.port;
    await waitFor(async () => (await fetch(`${stack!.url}/readyz`)).ok, {
      what: 'gateway ready',
      timeoutMs: 30_000,
    });
    links = new InternalClient('links', stack.services.links.url, stack.internalSecret);
    db = new Client({ connectionString: testServers.databaseUrl });
    await db.connect();
    alice = new Browser();
    bob = new Browser();
    carol = new Browser();
    for (const [browser, user] of [
      [alice, 'alice'],
      [bob, 'bob'],
      [carol, 'carol'],
    ] as const) {
      const trip = await signIn(browser, stack.url, user, '/');
      if (!browser.cookie(SESSION_COOKIE))
        throw new Error(`${user} not signed in: ${trip.callback.status}`);
    }
  });

  afterAll(async () => {
    await stack?.stop();
    await provider?.stop();
    await db?.end();
    for (const [test, counts] of statuses) {
      const line = [...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
      process.stdout.write(`  ${test.replace(/^hostile input /, '')}: ${line.join(' ')}\n`);
    }
    process.stdout.write(`\nhostile inputs: ${cases} generated cases, seed ${SEED}\n`);
  });

  it('redirect: any path under /r/ answers 302 to the stored URL of its code, or no redirect', async () => {
    const codes = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        createInternal({ userId: null }, `https://example.com/h/${run}/${i}?q=<a>`),
      ),
    );
    const knownCode = fc.constantFrom(...codes.map((link) => link.urlID));
    const path = fc.oneof(
      knownCode,
      fc.tuple(knownCode, text).map(([code, rest]) => `${code}${rest}`),
      fc.tuple(text, knownCode).map(([rest, code]) => `${rest}${code}`),
      knownCode.map((code) => code.toUpperCase()),
      fc.string({ unit: 'binary', maxLength: 32 }),
      fc.string({ minLength: 7, maxLength: 7 }),
      text,
    );
    await fc.assert(
      fc.asyncProperty(
        path,
        fc.boolean(),
        fc.oneof(
          { weight: 4, arbitrary: fc.constant('GET') },
          fc.constantFrom('HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'G<T'),
        ),
        fc.array(
          fc.tuple(
            fc.constantFrom('User-Agent', 'Referer', 'X-Forwarded-For', 'Accept'),
            headerText,
          ),
          {
            maxLength: 3,
          },
        ),
        async (rest, raw, method, headers) => {
          const target = `/r/${inTarget(rest, raw)}`;
          const response = await rawRequest(redirectPort, { method, target, headers });
          note(response.status);
          // The code the service reads: the target ends at the first space of the request
          // line (a raw one may hold several), the code after /r/ at the query.
          const code = target.split(' ')[0]!.slice(3).split('?')[0]!;
          checkAnswer(response, `http://127.0.0.1:${redirectPort}`, {
            input: rest,
            mayRedirectTo: (location) =>
              known.get(code) === location.href && response.status === 302,
          });
        },
      ),
      runs(3000),
    );
  });

  it('links API: a URL is stored only when it is a safe http(s) URL, and nothing on a refusal', async () => {
    const owner = `hostile-internal-${run}`;
    let expected = await ownedCount(owner);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 4, arbitrary: urlLike },
          { weight: 1, arbitrary: fc.array(urlLike, { maxLength: 3 }) },
          { weight: 1, arbitrary: fc.jsonValue() },
        ),
        fc.oneof(fc.constantFrom(7, 15, 30, 60, '60', 45, -1, 'x', null), fc.jsonValue()),
        fc.boolean(),
        async (url, days, anonymous) => {
          const identity = { userId: anonymous ? null : owner };
          const response = await links.request<InternalLink & { message?: string }>(
            'POST',
            '/internal/links',
            { identity, body: { url, days } },
          );
          note(response.status);
          const input = short(JSON.stringify(url) ?? 'undefined', 200);
          if (response.status >= 500) throw new Error(`${input}: ${response.status}`);
          if (response.status === 201) {
            const stored = new URL(response.body.originalUrl);
            if (
              !['http:', 'https:'].includes(stored.protocol) ||
              stored.username ||
              stored.password
            ) {
              throw new Error(`${input}: stored ${response.body.originalUrl}`);
            }
            if (!anonymous) expected += 1;
            // Its redirect goes exactly there.
            const redirect = await rawRequest(redirectPort, {
              target: `/r/${response.body.urlID}`,
            });
            if (redirect.status !== 302 || header(redirect, 'location') !== stored.href) {
              throw new Error(
                `${input}: redirect ${redirect.status} to ${header(redirect, 'location')}`,
              );
            }
            return;
          }
          if (response.status < 400 || typeof response.body.message !== 'string') {
            throw new Error(`${input}: ${response.status} ${JSON.stringify(response.body)}`);
          }
          const now = await ownedCount(owner);
          if (now !== expected)
            throw new Error(`${input}: refused with ${response.status} but stored`);
        },
      ),
      runs(1500),
    );
  });

  it('links API: a short link of this service, however its host is spelled, is refused (no loops)', async () => {
    const gatewayHost = new URL(gateway.origin);
    const spellings = fc.oneof(
      // The configured short-link host: case, a trailing dot (the same name, fully qualified),
      // percent-encoded characters, the default port written out.
      fc
        .tuple(
          fc.constantFrom('http', 'https'),
          fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
          fc.constantFrom('', '.', '%2E', '%2e'),
          fc.constantFrom('', ':443', ':80'),
          fc.boolean(),
        )
        .map(([scheme, upper, dot, port, encoded]) => {
          const name = [...SHORT_LINK_HOST]
            .map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c))
            .join('');
          const host = encoded ? name.replace('o', '%6F') : name;
          const explicit =
            (scheme === 'https' && port === ':443') || (scheme === 'http' && port === ':80');
          return `${scheme}://${host}${dot}${explicit ? port : ''}/r/abcdefg`;
        }),
      // The gateway's own origin, in the spellings of 127.0.0.1 a URL parser accepts.
      fc
        .constantFrom('127.0.0.1', '127.0.0.1.', '127.1', '0x7f.0.0.1', '2130706433', '0177.0.0.1')
        .map((host) => `http://${host}:${gatewayHost.port}/r/abcdefg`),
      // Any alias of this machine, on any port: loopback names, IP literals in any notation,
      // IPv6 and IPv4-mapped IPv6, the unspecified address.
      fc
        .tuple(
          fc.constantFrom(
            'localhost',
            'LocalHost.',
            'links.localhost',
            '%6c%6fcalhost',
            '0x7f000001',
            '127.0.0.2',
            '127.255.255.254',
            '0',
            '0.0.0.0',
            '0x0',
            '[::1]',
            '[0:0:0:0:0:0:0:1]',
            '[::]',
            '[::ffff:127.0.0.1]',
            '[::ffff:7f00:1]',
            '[::127.0.0.1]',
            '[::ffff:0.0.0.0]',
          ),
          fc.constantFrom('http', 'https'),
          fc.constantFrom('', `:${gatewayHost.port}`, ':80', ':8080', ':3000'),
          fc.constantFrom('/r/abcdefg', '/', '/profile', '/api/user'),
        )
        .map(([host, scheme, port, path]) => `${scheme}://${host}${port}${path}`),
    );
    await fc.assert(
      fc.asyncProperty(spellings, async (url) => {
        const response = await links.request<{ message?: string }>('POST', '/internal/links', {
          identity: { userId: `hostile-loops-${run}` },
          body: { url, days: 7 },
        });
        note(response.status);
        if (response.status !== 400) throw new Error(`${url}: ${response.status}, not refused`);
      }),
      runs(300),
    );
  });

  it("links API: no identity reads, lists or deletes another's link, whatever the code looks like", async () => {
    const owner = { userId: `hostile-owner-${run}` };
    const other = { userId: `hostile-other-${run}` };
    const owned = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        createInternal(owner, `https://example.com/own/${run}/${i}`),
      ),
    );
    const code = fc.constantFrom(...owned.map((link) => link.urlID));
    const variant = fc.oneof(
      code,
      code.map((c) => c.toLowerCase()),
      fc.tuple(code, text).map(([c, rest]) => `${c}${encode(rest)}`),
      code.map((c) => `${c}%2F`),
      code.map((c) => `..%2F${c}`),
      code.map((c) => `${c}?x=1`),
      text.map(encode),
    );
    await fc.assert(
      fc.asyncProperty(
        variant,
        fc.constantFrom<'GET' | 'DELETE'>('GET', 'DELETE'),
        async (id, method) => {
          const response = await links.request<unknown>(method, `/internal/links/${id}`, {
            identity: other,
          });
          note(response.status);
          const seen = JSON.stringify(response.body) ?? '';
          const leaked = owned.filter(
            (l) => seen.includes(l.urlID) || seen.includes(l.originalUrl),
          );
          // `GET /internal/links/` (an empty id) is the caller's own list: a 200 is right there.
          const allowed = method === 'GET' && leaked.length === 0;
          if (response.status >= 500 || leaked.length > 0 || (response.status < 400 && !allowed)) {
            throw new Error(`${method} ${id} as another user: ${response.status} ${short(seen)}`);
          }
        },
      ),
      runs(500),
    );
    const list = await links.request<{ links: InternalLink[] }>('GET', '/internal/links', {
      identity: other,
    });
    expect(list.body.links).toEqual([]);
    const mine = await links.request<{ links: InternalLink[] }>('GET', '/internal/links', {
      identity: owner,
    });
    expect(mine.body.links.map((l) => l.urlID).sort()).toEqual(owned.map((l) => l.urlID).sort());
  });

  it('gateway: shorten refuses what it must, stores nothing when it refuses, never fails', async () => {
    const aliceCode = await shortenAs(alice, `https://example.com/alice/${run}`);
    const { rows } = await db!.query<{ owner_id: string }>(
      'SELECT owner_id FROM links.links WHERE code = $1',
      [aliceCode],
    );
    const aliceId = rows[0]!.owner_id;
    let expected = await ownedCount(aliceId);
    const extra = fc.array(
      fc.tuple(
        fc.constantFrom(
          'url',
          'days',
          'url[]',
          'url[0]',
          'days[]',
          '__proto__',
          'constructor',
          'x',
        ),
        text,
      ),
      { maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        urlLike,
        fc.option(fc.oneof(fc.constantFrom('7', '15', '30', '60', '45', '-1', '1e9', ''), text)),
        extra,
        fc.boolean(),
        fc.constantFrom('alice', 'anonymous', 'no-header'),
        async (url, days, params, raw, who) => {
          const query = [
            `url=${inTarget(url, raw)}`,
            ...(days === null ? [] : [`days=${encode(days)}`]),
            ...params.map(([key, value]) => `${encode(key)}=${encode(value)}`),
          ].join('&');
          const response = await api({
            method: 'POST',
            target: `/api/shorten/?${query}`,
            ...(who === 'alice' ? { as: alice } : {}),
            requestedWith: who !== 'no-header',
          });
          note(response.status);
          checkAnswer(response, gateway.origin, { input: url });
          // Without the header nothing is done (403; 400 when the request itself is malformed).
          if (who === 'no-header' && response.status < 400) {
            throw new Error(`no X-Requested-With but ${response.status}`);
          }
          if (who !== 'alice') return;
          if (response.status === 201) expected += 1;
          else if ((await ownedCount(aliceId)) !== expected) {
            throw new Error(`${JSON.stringify(url)}: refused with ${response.status} but stored`);
          }
        },
      ),
      runs(1500),
    );
  });

  it('gateway: /login?from= returns only to same-site paths, and goes nowhere else but the provider', async () => {
    const authorize = new URL(provider!.authorizationUrl);
    const from = fc.oneof(text, fc.constantFrom(...SPECIAL), fc.webPath(), urlLike);
    const headerNames = fc.constantFrom('Host', 'X-Forwarded-Host', 'X-Forwarded-Proto', 'Referer');
    await fc.assert(
      fc.asyncProperty(
        from,
        fc.boolean(),
        fc.array(fc.tuple(headerNames, headerText), { maxLength: 2 }),
        async (value, repeated, headers) => {
          const target = `/login?from=${encode(value)}${repeated ? `&from=${encode(value)}` : ''}`;
          const response = await rawRequest(gateway.port, { target, headers });
          note(response.status);
          checkAnswer(response, gateway.origin, {
            input: value,
            mayRedirectTo: (location) => toUsOrProvider(location, gateway.origin, authorize),
          });
        },
      ),
      runs(700),
    );
    // The whole trip, provider and callback included, for fewer values: it signs in each time.
    const wellFormed = from
      .map((value) => Buffer.from(value, 'utf8').toString('utf8'))
      .filter((value) => value.length < 500);
    await fc.assert(
      fc.asyncProperty(wellFormed, async (value) => {
        const trip = await signIn(new Browser(), gateway.origin, 'alice', value);
        note(trip.callback.status);
        const landed = trip.landedAt ? new URL(trip.landedAt) : undefined;
        if (trip.callback.status >= 500 || landed?.origin !== new URL(gateway.origin).origin) {
          throw new Error(
            `from ${JSON.stringify(value)}: ${trip.callback.status} to ${trip.landedAt}`,
          );
        }
      }),
      runs(150),
    );
    // A callback that did not come from a sign-in this browser started.
    await fc.assert(
      fc.asyncProperty(text, text, async (code, state) => {
        const target = `/auth/google/callback?code=${encode(code)}&state=${encode(state)}`;
        const response = await rawRequest(gateway.port, { target });
        note(response.status);
        checkAnswer(response, gateway.origin, { input: `${code}${state}` });
      }),
      runs(300),
    );
  });

  it('gateway: a cookie is one user or none, never another, whatever else the header holds', async () => {
    const aliceSid = alice.cookie(SESSION_COOKIE)!.value;
    const mutated = fc
      .tuple(
        fc.nat(),
        fc.constantFrom('flip', 'drop', 'insert', 'append'),
        fc.string({ minLength: 1, maxLength: 2 }),
      )
      .map(([at, how, piece]) => {
        const i = at % aliceSid.length;
        switch (how) {
          case 'flip':
            return `${aliceSid.slice(0, i)}${aliceSid[i] === 'A' ? 'B' : 'A'}${aliceSid.slice(i + 1)}`;
          case 'drop':
            return `${aliceSid.slice(0, i)}${aliceSid.slice(i + 1)}`;
          case 'insert':
            return `${aliceSid.slice(0, i)}${piece}${aliceSid.slice(i)}`;
          default:
            return `${aliceSid}${piece}`;
        }
      });
    const cookie = fc.oneof(
      headerText,
      mutated.map((sid) => `${SESSION_COOKIE}=${sid}`),
      fc.tuple(headerText, mutated).map(([junk, sid]) => `${junk}; ${SESSION_COOKIE}=${sid}`),
      headerText.map((junk) => `${SESSION_COOKIE}=${aliceSid}; ${junk}`),
      headerText.map((junk) => `${SESSION_COOKIE}=${junk}`),
    );
    await fc.assert(
      fc.asyncProperty(cookie, async (value) => {
        const response = await api({ target: '/api/user', headers: [['Cookie', value]] });
        note(response.status);
        checkAnswer(response, gateway.origin, { input: value });
        if (response.status === 200) {
          const user = JSON.parse(response.body) as UserData;
          // Only alice's own, unchanged cookie may sign in, and only as alice.
          if (user.fullName !== 'Alice' || firstCookie(value, SESSION_COOKIE) !== aliceSid) {
            throw new Error(`cookie ${JSON.stringify(value)} signed in as ${user.fullName}`);
          }
        } else if (![400, 401, 431].includes(response.status)) {
          throw new Error(`cookie ${JSON.stringify(value)}: ${response.status}`);
        }
      }),
      runs(1000),
    );
  });

  it('gateway: any header value, oversized or repeated parameters, on any route: no failure', async () => {
    const authorize = new URL(provider!.authorizationUrl);
    const route = fc.constantFrom(
      ['GET', '/api/user'],
      ['POST', '/api/shorten/'],
      ['GET', '/api/visitors/abcdefg'],
      ['POST', '/api/delete/abcdefg'],
      ['GET', '/r/abcdefg'],
      ['GET', '/login'],
      ['GET', '/logout'],
      ['GET', '/'],
      ['GET', '/api/docs'],
    );
    const headerName = fc.constantFrom(
      'X-Requested-With',
      'X-Forwarded-For',
      'X-Forwarded-Host',
      'X-Forwarded-Proto',
      'Origin',
      'Referer',
      'User-Agent',
      'Accept',
      'Accept-Language',
      'Content-Type',
      'X-Request-Id',
      'Cookie',
    );
    // Many parameters, names repeated, and now and then one far over any limit.
    const huge = fc.nat({ max: 40_000 }).map((n) => 'x'.repeat(n));
    const params = fc.array(
      fc.tuple(
        fc.constantFrom('url', 'days', 'from', 'cursor', 'q'),
        fc.oneof({ weight: 9, arbitrary: text }, { weight: 1, arbitrary: huge }),
      ),
      { maxLength: 40 },
    );
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.array(
          fc.tuple(
            headerName,
            fc.oneof({ weight: 9, arbitrary: headerText }, { weight: 1, arbitrary: huge }),
          ),
          { maxLength: 4 },
        ),
        params,
        fc.boolean(),
        async ([method, path], headers, query, signedIn) => {
          const target = `${path}?${query.map(([k, v]) => `${k}=${encode(v)}`).join('&')}`;
          const response = await api({
            method,
            target,
            headers,
            ...(signedIn ? { as: carol } : {}),
          });
          note(response.status);
          // Each value on its own for the echo check; the empty one checks the answer at least once.
          for (const value of ['', ...[...headers, ...query].map(([, v]) => v)]) {
            checkAnswer(response, gateway.origin, {
              input: value,
              mayRedirectTo: (location) => toUsOrProvider(location, gateway.origin, authorize),
            });
          }
        },
      ),
      runs(800),
    );
  });

  it("gateway: no user reads, lists or deletes another user's link", async () => {
    const owned = await Promise.all(
      Array.from({ length: 3 }, (_, i) => shortenAs(alice, `https://example.com/mine/${run}/${i}`)),
    );
    const code = fc.constantFrom(...owned);
    const id = fc.oneof(
      code,
      code.map((c) => c.toLowerCase()),
      fc.tuple(code, text).map(([c, rest]) => `${c}${encode(rest)}`),
      code.map((c) => `${c}%2F`),
      code.map((c) => `..%2F${c}`),
      code.map((c) => `${encodeURIComponent(c)}%00`),
      code.map((c) => `${c}?cursor=x`),
      text.map(encode),
    );
    await fc.assert(
      fc.asyncProperty(
        id,
        fc.constantFrom(['GET', '/api/visitors/'], ['POST', '/api/delete/']),
        fc.constantFrom('bob', 'anonymous'),
        async (value, [method, route], who) => {
          const response = await api({
            method,
            target: `${route}${value}`,
            ...(who === 'bob' ? { as: bob } : {}),
          });
          note(response.status);
          checkAnswer(response, gateway.origin, { input: value });
          if (response.status < 400)
            throw new Error(`${who} ${method} ${route}${value}: ${response.status}`);
        },
      ),
      runs(600),
    );
    const seenByBob = JSON.parse((await api({ target: '/api/user', as: bob })).body) as UserData;
    expect(seenByBob.urls.filter((link) => owned.includes(link.urlID))).toEqual([]);
    const seenByAlice = JSON.parse(
      (await api({ target: '/api/user', as: alice })).body,
    ) as UserData;
    expect(owned.filter((c) => !seenByAlice.urls.some((link) => link.urlID === c))).toEqual([]);
    for (const c of owned) {
      const redirect = await rawRequest(redirectPort, { target: `/r/${c}` });
      expect(redirect.status).toBe(302);
    }
  });

  it('any body, in any encoding, on any route: never a failure; too large 413, undecodable 400, unknown encoding 415', async () => {
    const LIMIT = 16 * 1024;
    const DECODED = ['identity', 'gzip', 'deflate', 'br'];
    const compress = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;
    const payload = fc.oneof(
      fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
      fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
      text.map((value) => Buffer.from(value)),
      fc.integer({ min: LIMIT - 64, max: 3 * LIMIT }).map((n) => Buffer.from(`"${'a'.repeat(n)}"`)),
    );
    const encoding = fc.constantFrom(
      '',
      'identity',
      'gzip',
      'deflate',
      'br',
      'GZIP',
      'xz',
      'gzip, gzip',
    );
    // How the bytes sent relate to the encoding named: compressed as named, cut short, or garbage.
    const wire = fc.constantFrom('as-named', 'truncated', 'garbage');
    const route = fc.constantFrom(
      ['gateway', 'POST', '/api/shorten/?url=https%3A%2F%2Fexample.com%2F'],
      ['gateway', 'POST', '/api/delete/abcdefg'],
      ['gateway', 'GET', '/api/user'],
      ['gateway', 'GET', '/api/visitors/abcdefg'],
      ['gateway', 'POST', '/auth/local'],
      ['gateway', 'POST', '/logout'],
      ['links', 'POST', '/internal/links'],
      ['analytics', 'POST', '/internal/visits/counts'],
      ['auth', 'POST', '/internal/sessions/lookup'],
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/octet-stream',
      'application/json; charset=utf-16',
    );
    await fc.assert(
      fc.asyncProperty(
        route,
        payload,
        encoding,
        wire,
        contentType,
        fc.boolean(),
        async ([service, method, target], body, named, how, type, forged) => {
          const name = named.trim().toLowerCase() || 'identity';
          let sent = body;
          let damaged = how === 'garbage';
          if (damaged) sent = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), body]);
          else if (name in compress) sent = compress[name as keyof typeof compress](body);
          if (how === 'truncated' && sent.length > 1) {
            sent = sent.subarray(0, sent.length >> 1);
            damaged = true;
          }
          const port =
            service === 'gateway' ? gateway.port : stack!.services[service as 'links'].port;
          const response = await rawRequest(port, {
            method,
            target,
            headers: [
              ['X-Requested-With', 'XMLHttpRequest'],
              ['Origin', gateway.origin],
              ['Content-Type', type],
              ...(named === '' ? [] : [['Content-Encoding', named] as const]),
              // A client's internal token is dropped by the gateway, refused by a service.
              ...(forged ? [['X-Internal-Token', `v2.${'a'.repeat(40)}`] as const] : []),
            ],
            body: sent,
          });
          note(response.status);
          checkAnswer(response, gateway.origin, { input: '' });
          const context = `${service} ${method} ${target} ${named} ${how}: ${response.status}`;
          if (service !== 'gateway' && response.status < 400) {
            throw new Error(`${context}: an internal call without a valid token was taken`);
          }
          if (service !== 'gateway' || !target.startsWith('/api/')) return;
          // /api reads every body, behind the rate limit, whatever its type.
          if (sent.length === 0) return;
          let expected: number[] = [];
          if (sent.length > LIMIT) expected = [413];
          else if (!DECODED.includes(name)) expected = [415];
          // A cut or garbled stream fails to decode, unless its first part inflates past the limit.
          else if (name !== 'identity' && damaged)
            expected = body.length > LIMIT ? [400, 413] : [400];
          // Compressed as named: what counts is the size it inflates to.
          else if (name !== 'identity' && body.length > LIMIT) expected = [413];
          if (expected.length === 0) return;
          if (!expected.includes(response.status)) {
            throw new Error(
              `${context}, expected ${expected.join(' or ')}: ${response.body.slice(0, 200)}`,
            );
          }
          if (!/^\{"message":"[^"]+"\}$/.test(response.body)) {
            throw new Error(`${context}: not the {message} shape: ${response.body.slice(0, 200)}`);
          }
        },
      ),
      runs(600),
    );
  });

  it('ran at least 10,000 generated cases', () => {
    expect(cases).toBeGreaterThanOrEqual(10_000);
  });
});
