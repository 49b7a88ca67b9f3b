import { randomUUID } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { Client } from 'pg';
import { InternalClient, signInternalToken, type CallerIdentity } from '@shortener/chassis';
import {
  internalApi,
  internalErrorSchema,
  internalLinkSchema,
  SESSION_COOKIE,
  type InternalLink,
  type UserData,
} from '@shortener/contracts';
import {
  freePort,
  serviceList,
  startOAuth2Mock,
  startService,
  startStack,
  testServers,
  waitFor,
  type OAuth2Mock,
  type ServiceProcess,
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
// And the attacks of issue 13, each failing: sign-out from another site, a query or OAuth
// code in a log line, a client's x-internal-* headers or a moved or replayed internal token,
// ops endpoints through a proxy, unknown codes past a client's miss budget (an IPv6 /64).
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

/**
 * Header values a server's parser takes as they are (no control characters): for properties
 * whose expected outcome depends on the value arriving, not on the request being refused.
 */
const validHeaderText = headerText.map((value) =>
  [...value]
    .map((c) => {
      const code = c.charCodeAt(0);
      return (code < 0x20 && code !== 0x09) || code === 0x7f ? ' ' : c;
    })
    .join(''),
);

const ALPHANUMERIC = [...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'];
const alphanumeric = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...ALPHANUMERIC), minLength, maxLength });

/** A header value as a server reads it: optional whitespace around it is not part of it. */
const trimmed = (value: string): string => value.replace(/^[ \t]+|[ \t]+$/g, '');

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
  // Signed in and out again and again by the sign-out property; also the full sign-ins of the logs one.
  dave: {
    sub: `hostile-dave-${run}`,
    name: 'Dave',
    picture: 'https://i.example/d.png',
    email: 'd@example.com',
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
  /** A second redirect instance with a small miss budget, started by the budget property. */
  let budgeted: ServiceProcess | undefined;
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
    const response = await links.call(internalApi.createLink, { identity, body: { url, days: 7 } });
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
        // Request lines are logged at info: the logs property checks they never carry a query.
        LOG_LEVEL: 'info',
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
    redirectPort = stack.get('redirect').port;
    await waitFor(async () => (await fetch(`${stack!.url}/readyz`)).ok, {
      what: 'gateway ready',
      timeoutMs: 30_000,
    });
    links = new InternalClient('links', stack.get('links').url, stack.secret);
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
    await budgeted?.stop();
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
          // Raw: a hostile body may meet refusals no caller expects (413 for a huge one).
          const response = await links.request('POST', '/internal/links', {
            identity,
            body: { url, days },
          });
          note(response.status);
          const input = short(JSON.stringify(url) ?? 'undefined', 200);
          if (response.status >= 500) throw new Error(`${input}: ${response.status}`);
          if (response.status === 201) {
            const link = internalLinkSchema.parse(response.body);
            const stored = new URL(link.originalUrl);
            if (
              !['http:', 'https:'].includes(stored.protocol) ||
              stored.username ||
              stored.password
            ) {
              throw new Error(`${input}: stored ${link.originalUrl}`);
            }
            if (!anonymous) expected += 1;
            // Its redirect goes exactly there.
            const redirect = await rawRequest(redirectPort, { target: `/r/${link.urlID}` });
            if (redirect.status !== 302 || header(redirect, 'location') !== stored.href) {
              throw new Error(
                `${input}: redirect ${redirect.status} to ${header(redirect, 'location')}`,
              );
            }
            return;
          }
          if (response.status < 400 || !internalErrorSchema.safeParse(response.body).success) {
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
        const response = await links.request('POST', '/internal/links', {
          identity: { userId: `hostile-loops-${run}` },
          body: { url, days: 7 },
        });
        note(response.status);
        if (response.status !== 403) throw new Error(`${url}: ${response.status}, not refused`);
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
          const response = await links.request(method, `/internal/links/${id}`, {
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
    const list = await links.call(internalApi.listLinks, { identity: other });
    expect(list.body.links).toEqual([]);
    const mine = await links.call(internalApi.listLinks, { identity: owner });
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
          const port = service === 'gateway' ? gateway.port : stack!.get(service).port;
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

  it('sign-out: a session ends only by a POST /logout from our own origin; GET /logout, or any other request, never ends it (item 5)', async () => {
    const ours = new URL(gateway.origin).origin;
    const port = Number(new URL(gateway.origin).port);
    const freshSession = async (): Promise<string> => {
      const browser = new Browser();
      await signIn(browser, gateway.origin, 'dave', '/');
      const sid = browser.cookie(SESSION_COOKIE)?.value;
      if (!sid) throw new Error('dave not signed in');
      return sid;
    };
    const signedInAs = async (sid: string): Promise<string | undefined> => {
      const response = await api({
        target: '/api/user',
        headers: [['Cookie', `${SESSION_COOKIE}=${sid}`]],
      });
      if (response.status === 401) return undefined;
      if (response.status !== 200) throw new Error(`/api/user: ${response.status}`);
      return (JSON.parse(response.body) as UserData).fullName;
    };
    // Origins a page of another site, a sandboxed frame or a look-alike host would send.
    const lookAlike = fc.constantFrom(
      `${ours}/`,
      `${ours}/profile`,
      ours.toUpperCase(),
      ours.replace('http:', 'HTTP:'),
      ours.replace('http:', 'https:'),
      `http://localhost:${port}`,
      `http://[::1]:${port}`,
      `http://2130706433:${port}`,
      'http://127.0.0.1',
      `http://127.0.0.1:${port + 1}`,
      `http://127.0.0.1:0${port}`,
      `${ours}.evil.example`,
      `${ours}@evil.example`,
      `http://evil.example/${ours}`,
      `${ours}, ${ours}`,
      ` ${ours}`,
      `${ours}\t`,
      'null',
      'file://',
      '',
    );
    const origin = fc.oneof(
      { weight: 3, arbitrary: fc.constant(ours) },
      { weight: 4, arbitrary: lookAlike },
      { weight: 2, arbitrary: fc.webUrl().map((url) => new URL(url).origin) },
      { weight: 1, arbitrary: validHeaderText },
    );
    const site = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.constantFrom(
          'same-origin',
          'same-site',
          'cross-site',
          'none',
          'Same-Origin',
          ' same-origin ',
          'same-origin, cross-site',
          '',
        ),
      },
      { weight: 1, arbitrary: validHeaderText },
    );
    const referer = fc.oneof(
      fc.constantFrom(`${ours}/`, `${ours}/profile`, 'https://evil.example/', ''),
      validHeaderText,
    );
    const method = fc.oneof(
      { weight: 6, arbitrary: fc.constant('POST') },
      { weight: 3, arbitrary: fc.constant('GET') },
      fc.constantFrom('HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
    );
    let sid = await freshSession();
    let ended = 0;
    await fc.assert(
      fc.asyncProperty(
        method,
        fc.array(origin, { maxLength: 2 }),
        fc.array(site, { maxLength: 2 }),
        fc.option(referer),
        fc.option(text.map(encode)),
        fc.constantFrom('Origin', 'origin', 'ORIGIN'),
        async (verb, origins, sites, from, query, originName) => {
          const response = await rawRequest(gateway.port, {
            method: verb,
            target: query === null ? '/logout' : `/logout?q=${query}`,
            headers: [
              ['Cookie', `${SESSION_COOKIE}=${sid}`],
              ...origins.map((value) => [originName, value] as const),
              ...sites.map((value) => ['Sec-Fetch-Site', value] as const),
              ...(from === null ? [] : [['Referer', from] as const]),
            ],
          });
          note(response.status);
          checkAnswer(response, gateway.origin, { input: '' });
          // The auth service's rule (same-origin.ts), on the headers as a server joins repeats.
          const sameOrigin =
            origins.length > 0
              ? origins.map(trimmed).join(', ') === ours
              : sites.length > 0
                ? sites.map(trimmed).join(', ') === 'same-origin'
                : true;
          const signsOut = verb === 'POST' && sameOrigin;
          const who = await signedInAs(sid);
          const context = `${verb} /logout, Origin ${JSON.stringify(origins)}, Sec-Fetch-Site ${JSON.stringify(sites)}: ${response.status}`;
          if (signsOut) {
            if (response.status !== 302 || who !== undefined) {
              throw new Error(`${context}, the session ${who ? 'was kept' : 'ended'}`);
            }
            ended += 1;
            sid = await freshSession();
            return;
          }
          if (who !== 'Dave') throw new Error(`${context}: the session ended`);
          if (verb === 'POST' && response.status !== 403) {
            throw new Error(`${context}: a refused sign-out should answer 403`);
          }
        },
      ),
      runs(400),
    );
    expect(ended).toBeGreaterThan(0);
  });

  it('logs: no query value, nor an OAuth code or state, reaches any service log, on any route (item 6)', async () => {
    const services = serviceList().map(({ name }) => stack!.get(name));
    const start = new Map(services.map((service) => [service, service.output().length]));
    const logged = (): string =>
      services.map((service) => service.output().slice(start.get(service))).join('\n');
    const knownCode = await shortenAs(alice, `https://example.com/logs/${run}`);
    const everySecret: string[] = [];
    let serial = 0;
    const leaked = (values: readonly string[]): string | undefined => {
      const output = logged();
      const found = values.filter((value) => output.includes(value));
      if (found.length === 0) return undefined;
      const lines = output.split('\n').filter((line) => found.some((v) => line.includes(v)));
      return `${found.join(', ')} in:\n${short(lines.join('\n'), 2000)}`;
    };
    // A secret as tokens look (a prefix, base64url or a JWT's shape); its core, unique per case,
    // is what is looked for.
    const secret = fc.record({
      prefix: fc.constantFrom(
        '',
        'ghp_',
        'sk_live_',
        'xoxb-',
        'AKIA',
        'ya29.',
        'eyJhbGciOiJIUzI1NiJ9.',
      ),
      core: alphanumeric(8, 32),
      suffix: fc.constantFrom('', '==', '.c2lnbmF0dXJl', '-_~'),
    });
    const name = fc.oneof(
      fc.constantFrom(
        'token',
        'access_token',
        'key',
        'api_key',
        'code',
        'state',
        'sig',
        'password',
        'X-Amz-Signature',
      ),
      alphanumeric(1, 12),
    );
    const route = fc.constantFrom(
      'r via gateway',
      'r direct',
      'r unknown',
      'shorten url',
      'shorten parameter',
      'shorten bad body',
      'shorten too large',
      'login from',
      'callback unsolicited',
      'callback started',
      'callback error',
      'api user',
      'api visitors',
      'api unknown',
      'logout',
      'page',
      'full sign-in',
    );
    await fc.assert(
      fc.asyncProperty(route, name, secret, secret, async (where, key, first, second) => {
        const mark = `${run}${(serial++).toString(36)}x`;
        const value = `${first.prefix}${mark}${first.core}${first.suffix}`;
        const other = `${second.prefix}${mark}y${second.core}${second.suffix}`;
        const watched = [`${mark}${first.core}`, `${mark}y${second.core}`];
        const query = `${encode(key)}=${encode(value)}`;
        // The gateway logs each request with this id: once its line is there, the case's are.
        const id = ['X-Request-Id', `hostile-logs-${mark}`] as const;
        const gw = (request: RawRequest): Promise<RawResponse> =>
          rawRequest(gateway.port, { ...request, headers: [id, ...(request.headers ?? [])] });
        const apiWithId = (request: Parameters<typeof api>[0]): Promise<RawResponse> =>
          api({ ...request, headers: [id, ...(request.headers ?? [])] });
        let status: number;
        switch (where) {
          case 'r via gateway':
          case 'r unknown': {
            const code = where === 'r unknown' ? `${mark}`.slice(-7).padStart(7, '0') : knownCode;
            status = (await gw({ target: `/r/${code}?${query}&b=${encode(other)}` })).status;
            break;
          }
          case 'r direct':
            status = (await rawRequest(redirectPort, { target: `/r/${knownCode}?${query}` }))
              .status;
            break;
          case 'shorten url': {
            const target = `https://docs.example/report?${query}#${encode(other)}`;
            status = (
              await apiWithId({
                method: 'POST',
                target: `/api/shorten/?url=${encode(target)}&days=7`,
              })
            ).status;
            break;
          }
          case 'shorten parameter':
            status = (
              await apiWithId({
                method: 'POST',
                target: `/api/shorten/?url=https%3A%2F%2Fexample.com%2F&${query}`,
                as: alice,
              })
            ).status;
            break;
          case 'shorten bad body':
            status = (
              await apiWithId({
                method: 'POST',
                target: `/api/shorten/?${query}`,
                headers: [['Content-Type', 'application/json']],
                body: `{"url": "${value}`,
              })
            ).status;
            break;
          case 'shorten too large':
            status = (
              await apiWithId({
                method: 'POST',
                target: `/api/shorten/?${query}`,
                headers: [['Content-Type', 'application/json']],
                body: `"${'a'.repeat(20_000)}${value}"`,
              })
            ).status;
            break;
          case 'login from':
            status = (
              await gw({
                target: `/login?from=${encode(`/profile?${query}`)}`,
              })
            ).status;
            break;
          case 'callback unsolicited':
            status = (
              await gw({
                target: `/auth/google/callback?code=${encode(value)}&state=${encode(other)}`,
              })
            ).status;
            break;
          case 'callback error':
            status = (
              await gw({
                target: `/auth/google/callback?error=access_denied&error_description=${encode(value)}&state=${encode(other)}`,
              })
            ).status;
            break;
          case 'callback started': {
            // A sign-in this browser started: the state is good, the code is not the provider's.
            const browser = new Browser();
            const login = await browser.fetch(`${gateway.origin}/login`);
            const state = new URL(login.headers.get('location') ?? '').searchParams.get('state');
            if (!state) throw new Error(`/login: ${login.status}, no state`);
            watched.push(state);
            const callback = await browser.fetch(
              `${gateway.origin}/auth/google/callback?code=${encode(value)}&state=${encode(state)}`,
              { headers: { [id[0]]: id[1] } },
            );
            status = callback.status;
            if (![400, 502].includes(status))
              throw new Error(`a code the provider never issued: ${status}`);
            break;
          }
          case 'full sign-in': {
            const trip = await signIn(new Browser(), gateway.origin, 'dave', `/profile?${query}`);
            const callback = new URL(trip.callbackUrl);
            watched.push(
              callback.searchParams.get('code') ?? '',
              callback.searchParams.get('state') ?? '',
            );
            status = trip.callback.status;
            if (status !== 302) throw new Error(`sign-in: ${status}`);
            break;
          }
          case 'api user':
            status = (await apiWithId({ target: `/api/user?${query}`, as: alice })).status;
            break;
          case 'api visitors':
            status = (
              await apiWithId({
                target: `/api/visitors/${knownCode}?cursor=${encode(value)}&${query}`,
                as: alice,
              })
            ).status;
            break;
          case 'api unknown':
            status = (await apiWithId({ target: `/api/nothing-here/?${query}` })).status;
            break;
          case 'logout':
            status = (
              await gw({
                method: 'POST',
                target: `/logout?${query}`,
                headers: [['Origin', 'https://evil.example']],
              })
            ).status;
            break;
          case 'page':
            status = (await gw({ target: `/profile?${query}` })).status;
            break;
        }
        note(status);
        if (status >= 500 && where !== 'callback started') throw new Error(`${where}: ${status}`);
        everySecret.push(...watched.filter((v) => v.length >= 8));
        // /r/ goes through the gateway before its request log (as through the Ingress), so
        // only the redirect's lines tell of it: looked at below, with the full sign-ins'.
        if (!['r direct', 'r via gateway', 'r unknown', 'full sign-in'].includes(where)) {
          const gatewayLog = stack!.get('gateway');
          await waitFor(() => gatewayLog.output().slice(start.get(gatewayLog)).includes(id[1]), {
            what: `the gateway's log line of ${id[1]}`,
            timeoutMs: 5_000,
            intervalMs: 2,
          });
        }
        const leak = leaked(watched.filter((v) => v.length >= 8));
        if (leak) throw new Error(`${where}: logged ${leak}`);
      }),
      runs(300),
    );
    // Lines not waited for (the redirect's, /r/ through the gateway, the full sign-ins'): every
    // secret looked for once more.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const leak = leaked(everySecret);
    if (leak) throw new Error(`logged ${leak}`);
    // The request lines were written (the level logs them), so a query in them would show.
    const output = logged();
    expect(output).toContain('/api/shorten/');
    expect(output).toContain('/auth/google/callback');
  });

  it("gateway: a client's x-internal-* headers, even a token validly signed for the request, are no identity (item 7)", async () => {
    const aliceCodes = await Promise.all(
      [0, 1].map((i) => shortenAs(alice, `https://example.com/internal7/${run}/${i}`)),
    );
    const bobCode = await shortenAs(bob, `https://example.com/bob7/${run}`);
    const ownerOf = async (code: string): Promise<string | null> => {
      const { rows } = await db!.query<{ owner_id: string | null }>(
        'SELECT owner_id FROM links.links WHERE code = $1',
        [code],
      );
      return rows[0]?.owner_id ?? null;
    };
    const aliceId = (await ownerOf(aliceCodes[0]!))!;
    const bobId = (await ownerOf(bobCode))!;
    const aliceOwns = await ownedCount(aliceId);
    const [code, deletable] = aliceCodes as [string, string];
    const routes: readonly (readonly [string, string, string?])[] = [
      ['GET', `/r/${code}`],
      ['GET', '/login'],
      ['GET', '/auth/google/callback?code=x&state=y'],
      ['POST', '/auth/local', 'name=alice'],
      ['GET', '/logout'],
      ['POST', '/logout'],
      ['GET', '/api/user'],
      ['GET', `/api/visitors/${code}`],
      ['POST', `/api/delete/${deletable}`],
      ['POST', `/api/shorten/?url=${encode(`https://example.com/forged7/${run}`)}&days=7`],
      // Past the proxied prefixes, to the services' internal routes.
      ['GET', '/auth/../internal/links'],
      ['GET', `/auth/..%2F..%2Finternal%2Flinks%2F${code}`],
      ['GET', `/r/../internal/links/${code}`],
      ['GET', `/r/..%2F..%2Finternal%2Fresolve%2F${code}`],
      ['POST', '/auth/../internal/sessions/lookup', '{}'],
      ['GET', '/api/../internal/links'],
    ];
    const headerName = fc.oneof(
      fc.constantFrom(
        'x-internal-token',
        'X-Internal-Token',
        'X-INTERNAL-TOKEN',
        'x-internal-user',
        'x-internal-user-id',
        'x-internal-identity',
        'X-Internal-Caller',
      ),
      fc
        .string({
          unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-'),
          minLength: 1,
          maxLength: 12,
        })
        .map((suffix) => `x-internal-${suffix}`),
    );
    // What the header holds: a token signed now with the shared secret (for this very request,
    // for the internal call the gateway makes, for anyone), or what else a client may try.
    const headerValue = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom(
          'signed here',
          'signed internal',
          'signed own link',
          'signed anonymous',
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom('alice id', 'identity json', 'forged') },
      { weight: 1, arbitrary: validHeaderText },
    );
    const tokenFor = (
      what: string,
      method: string,
      target: string,
      body: string | undefined,
    ): string => {
      const secret = stack!.secret;
      const aliceIdentity = { userId: aliceId };
      switch (what) {
        case 'signed here':
          return signInternalToken(secret, aliceIdentity, { method, path: target, body });
        case 'signed internal':
          return signInternalToken(secret, aliceIdentity, {
            method: 'GET',
            path: '/internal/links',
          });
        case 'signed own link':
          return signInternalToken(secret, aliceIdentity, {
            method: 'GET',
            path: `/internal/links/${code}`,
          });
        case 'signed anonymous':
          return signInternalToken(secret, { userId: null }, { method, path: target, body });
        case 'alice id':
          return aliceId;
        case 'identity json':
          return JSON.stringify(aliceIdentity);
        case 'forged':
          return `v2.${Buffer.from(aliceId).toString('base64url')}.${Date.now()}.${'a'.repeat(22)}.${'b'.repeat(43)}`;
        default:
          return what;
      }
    };
    const private_ = [aliceId, `internal7/${run}`, '"fullName":"Alice"'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(fc.tuple(headerName, headerValue), { minLength: 1, maxLength: 3 }),
        fc.constantFrom('anonymous', 'bob'),
        async ([method, target, body], headers, who) => {
          const response = await api({
            method,
            target,
            headers: [
              // Bob's own sign-out would end the session the later cases use; an anonymous
              // one, allowed, ends nobody's (alice's session is checked at the end).
              ...(target === '/logout' && who === 'bob'
                ? [['Origin', 'https://evil.example'] as const]
                : []),
              ...(body?.startsWith('{')
                ? [['Content-Type', 'application/json'] as const]
                : body
                  ? [['Content-Type', 'application/x-www-form-urlencoded'] as const]
                  : []),
              ...headers.map(
                ([name, what]) => [name, tokenFor(what, method, target, body)] as const,
              ),
            ],
            ...(body === undefined ? {} : { body }),
            ...(who === 'bob' ? { as: bob } : {}),
          });
          note(response.status);
          const context = `${who} ${method} ${target} with ${headers.map(([n, v]) => `${n}: ${v}`).join(', ')}: ${response.status}`;
          if (response.status >= 500 || response.status <= 0)
            throw new Error(`${context} ${short(response.body)}`);
          const seen = private_.filter((piece) => response.body.includes(piece));
          if (seen.length > 0) throw new Error(`${context}: answered alice's ${seen.join(', ')}`);
          if (target === '/api/user') {
            const expected = who === 'bob' ? 200 : 401;
            if (response.status !== expected) throw new Error(`${context}, expected ${expected}`);
            if (who === 'bob' && (JSON.parse(response.body) as UserData).fullName !== 'Bob') {
              throw new Error(`${context}: not Bob's data`);
            }
          }
          if (target.startsWith('/api/visitors/') || target.startsWith('/api/delete/')) {
            if (response.status < 400) throw new Error(`${context}: another user's link`);
          }
          if (target.startsWith('/api/delete/') && (await ownedCount(aliceId)) !== aliceOwns) {
            throw new Error(`${context}: alice's link deleted`);
          }
          if (target.startsWith('/api/shorten/') && response.status === 201) {
            const created = (JSON.parse(response.body) as { url: string }).url;
            const owner = await ownerOf(created);
            if (owner !== (who === 'bob' ? bobId : null)) {
              throw new Error(`${context}: stored for ${owner}`);
            }
          }
        },
      ),
      runs(500),
    );
    expect(await ownedCount(aliceId)).toBe(aliceOwns);
    const stillAlice = await api({ target: '/api/user', as: alice });
    expect(stillAlice.status).toBe(200);
    expect((JSON.parse(stillAlice.body) as UserData).fullName).toBe('Alice');
  });

  it('links API: a signed internal token is good for its one request: not again, nor with another body, path, method, user, secret or time (item 7)', async () => {
    const owner = `hostile-tokens-${run}`;
    const secret = stack!.secret;
    let expected = await ownedCount(owner);
    const send = (token: string, body: string, method = 'POST', target = '/internal/links') =>
      rawRequest(stack!.get('links').port, {
        method,
        target,
        headers: [
          ['Content-Type', 'application/json'],
          ['X-Internal-Token', token],
        ],
        body,
      });
    const flip = (value: string, at: number): string => {
      const i = at % value.length;
      return `${value.slice(0, i)}${value[i] === 'A' ? 'B' : 'A'}${value.slice(i + 1)}`;
    };
    let serial = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          'again',
          'other body',
          'body re-encoded',
          'other path',
          'other method',
          'stale',
          'ahead',
          'other user',
          'other secret',
          'signature changed',
          'nonce changed',
        ),
        fc.nat(),
        fc.constantFrom(7, 15, 30, 60),
        async (how, at, days) => {
          const url = `https://example.com/tokens/${run}/${serial++}`;
          const body = JSON.stringify({ url, days });
          const sign = (
            over: Partial<{
              body: string;
              method: string;
              path: string;
              now: number;
              user: string | null;
              secret: string;
            }> = {},
          ): string =>
            signInternalToken(
              over.secret ?? secret,
              { userId: over.user === undefined ? owner : over.user },
              {
                method: over.method ?? 'POST',
                path: over.path ?? '/internal/links',
                body: over.body ?? body,
              },
              over.now ?? Date.now(),
            );
          let response: RawResponse;
          switch (how) {
            case 'again': {
              const token = sign();
              const first = await send(token, body);
              if (first.status !== 201)
                throw new Error(`the genuine request: ${first.status} ${first.body}`);
              expected += 1;
              response = await send(token, body);
              break;
            }
            case 'other body':
              response = await send(sign(), JSON.stringify({ url: `${url}/other`, days }));
              break;
            case 'body re-encoded':
              // The same JSON value in other bytes: the token covers the bytes.
              response = await send(sign(), JSON.stringify({ days, url }));
              break;
            case 'other path':
              response = await send(sign({ path: '/internal/links/' }), body);
              break;
            case 'other method':
              response = await send(sign({ method: 'GET' }), body);
              break;
            case 'stale':
              response = await send(sign({ now: Date.now() - 11_000 - (at % 50_000) }), body);
              break;
            case 'ahead':
              response = await send(sign({ now: Date.now() + 6_000 + (at % 50_000) }), body);
              break;
            case 'other user': {
              // The user part swapped for another's, the signature kept.
              const parts = sign().split('.');
              parts[1] = Buffer.from(`someone-else-${at}`).toString('base64url');
              response = await send(parts.join('.'), body);
              break;
            }
            case 'other secret':
              response = await send(sign({ secret: `${secret}x` }), body);
              break;
            case 'signature changed': {
              const parts = sign().split('.');
              parts[4] = flip(parts[4]!, at);
              response = await send(parts.join('.'), body);
              break;
            }
            default: {
              const parts = sign().split('.');
              parts[3] = flip(parts[3]!, at);
              response = await send(parts.join('.'), body);
              break;
            }
          }
          note(response.status);
          if (response.status !== 401)
            throw new Error(`${how}: ${response.status} ${short(response.body)}`);
          if ((await ownedCount(owner)) !== expected)
            throw new Error(`${how}: refused, but stored`);
        },
      ),
      runs(300),
    );
    // The request itself, signed for what it is, goes through: the refusals were the token's.
    const body = JSON.stringify({ url: `https://example.com/tokens/${run}/last`, days: 7 });
    const last = await send(
      signInternalToken(
        secret,
        { userId: owner },
        { method: 'POST', path: '/internal/links', body },
      ),
      body,
    );
    expect(last.status).toBe(201);
    expect(await ownedCount(owner)).toBe(expected + 1);
  });

  it('ops: /metrics and /readyz are not served to a request forwarded from outside, on the public ports (item 9)', async () => {
    // Straight from this machine they are (so the 404s below are the forwarding's doing).
    expect((await rawRequest(gateway.port, { target: '/metrics' })).status).toBe(200);
    expect((await rawRequest(redirectPort, { target: '/metrics' })).status).toBe(200);
    const forwarding = fc.tuple(
      fc.constantFrom(
        'X-Forwarded-For',
        'x-forwarded-for',
        'Forwarded',
        'FORWARDED',
        'X-Real-IP',
        'x-real-ip',
      ),
      fc.oneof(
        fc.constantFrom(
          '127.0.0.1',
          '::1',
          '::ffff:127.0.0.1',
          '10.0.0.1',
          '203.0.113.7',
          'for=127.0.0.1',
          'for="[::1]"',
          'unknown',
          '',
          ' ',
        ),
        fc.ipV4(),
        fc.ipV6(),
        validHeaderText,
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('gateway', 'redirect'),
        fc.constantFrom('/metrics', '/readyz', '/metrics?name=x', '/readyz?full=1'),
        fc.constantFrom('GET', 'HEAD'),
        fc.array(forwarding, { minLength: 1, maxLength: 3 }),
        async (service, target, method, headers) => {
          const port = service === 'gateway' ? gateway.port : redirectPort;
          const response = await rawRequest(port, { method, target, headers });
          note(response.status);
          if (response.status !== 404 || /# HELP|"checks"|process_cpu/.test(response.body)) {
            throw new Error(
              `${service} ${method} ${target}: ${response.status} ${short(response.body, 200)}`,
            );
          }
        },
      ),
      runs(300),
    );
  });

  it("redirect: a client's unknown codes past its miss budget answer 429 while its links still redirect; an IPv6 client is its /64 (items 10, 11)", async () => {
    // This stack's redirect has the budget raised out of the way; this one keeps it small.
    const BURST = 3;
    budgeted = await startService('redirect', await freePort(), {
      INTERNAL_API_SECRET: stack!.secret,
      REDIS_URL: testServers.redisUrl,
      KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
      LINKS_URL: stack!.get('links').url,
      TRUSTED_PROXIES: '127.0.0.1,::1',
      LOG_LEVEL: 'warn',
      REDIRECT_MISS_BURST: String(BURST),
      // One more a minute: none comes back within a case.
      REDIRECT_MISS_BUDGET: '1',
    });
    const port = budgeted.port;
    const links = await Promise.all(
      [0, 1, 2].map((i) =>
        createInternal({ userId: null }, `https://example.com/budget/${run}/${i}`),
      ),
    );
    let clients = 0;
    let serial = 0;
    /** A client of its own: an IPv4 address, or an IPv6 /64 (as four groups). */
    const newClient = (v6: boolean): { v4?: string; v6?: number[] } => {
      const n = clients++;
      return v6
        ? { v6: [0x2001, 0xdb8, n >> 16, n & 0xffff] }
        : { v4: `198.18.${(n >> 8) & 255}.${n & 255}` };
    };
    /** One address of the client, spelled one of the ways a proxy may write it. */
    const addressOf = (
      client: { v4?: string; v6?: number[] },
      iid: number[],
      spelling: number,
    ): string => {
      if (client.v4) return spelling % 2 === 0 ? client.v4 : `::ffff:${client.v4}`;
      const groups = [...client.v6!, ...iid];
      const hex = groups.map((g) => g.toString(16));
      switch (spelling % 5) {
        case 0:
          return hex.join(':');
        case 1:
          return groups
            .map((g) => g.toString(16).padStart(4, '0'))
            .join(':')
            .toUpperCase();
        case 2:
          // Compressed, as a URL parser writes it.
          return new URL(`http://[${hex.join(':')}]/`).hostname.slice(1, -1);
        case 3: {
          const [g6 = 0, g7 = 0] = groups.slice(6);
          return `${hex.slice(0, 6).join(':')}:${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
        }
        default:
          return hex.join(':').toUpperCase();
      }
    };
    const step = fc.record({
      kind: fc.oneof(
        { weight: 3, arbitrary: fc.constant('unknown') },
        { weight: 1, arbitrary: fc.constant('known') },
        { weight: 1, arbitrary: fc.constant('malformed') },
      ),
      code: alphanumeric(4, 4),
      malformed: fc.oneof(
        alphanumeric(1, 6),
        alphanumeric(8, 12),
        fc.constantFrom('abc-def', 'abc_def', 'abc.def', '%2E%2E'),
      ),
      link: fc.nat({ max: links.length - 1 }),
      iid: fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 }),
      spelling: fc.nat({ max: 9 }),
      hops: fc.constantFrom('alone', 'after others', 'two headers'),
    });
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 12 }),
        async (v6, steps) => {
          const client = newClient(v6);
          const neighbour = newClient(v6);
          let tokens = BURST;
          const ask = (code: string, address: string, hops: string) => {
            const forwarded: [string, string][] =
              hops === 'alone'
                ? [['X-Forwarded-For', address]]
                : hops === 'after others'
                  ? [['X-Forwarded-For', `203.0.113.9, unknown, ::1, ${address}`]]
                  : [
                      ['X-Forwarded-For', '127.0.0.1, 2001:db8:ffff::1'],
                      ['X-Forwarded-For', ` ${address} `],
                    ];
            return rawRequest(port, { target: `/r/${code}`, headers: forwarded });
          };
          const trail: string[] = [];
          for (const s of steps) {
            const address = addressOf(client, s.iid, s.spelling);
            const unique = (serial++).toString(36).padStart(3, '0');
            const code =
              s.kind === 'unknown'
                ? `${s.code}${unique}`
                : s.kind === 'known'
                  ? links[s.link]!.urlID
                  : s.malformed;
            const response = await ask(code, address, s.hops);
            note(response.status);
            trail.push(`${s.kind} ${code} from ${address}: ${response.status}`);
            let expected: number;
            if (s.kind === 'known') expected = 302;
            else if (s.kind === 'malformed') expected = 404;
            else if (tokens >= 1) {
              expected = 404;
              tokens -= 1;
            } else expected = 429;
            const where = header(response, 'location');
            const fine =
              response.status === expected &&
              (expected !== 302 || where === known.get(links[s.link]!.urlID)) &&
              (expected !== 429 || Number(header(response, 'retry-after')) >= 1);
            if (!fine) throw new Error(`expected ${expected}:\n${trail.join('\n')}`);
            if (expected === 429) refused += 1;
          }
          // Another client (the next /64) has its budget whole.
          const next = await ask(
            `${steps[0]!.code}${(serial++).toString(36).padStart(3, '0')}`,
            addressOf(neighbour, [0, 0, 0, 1], 0),
            'alone',
          );
          note(next.status);
          if (next.status !== 404)
            throw new Error(`the next client: ${next.status}\n${trail.join('\n')}`);
        },
      ),
      runs(150),
    );
    expect(refused).toBeGreaterThan(0);
  });

  it('ran at least 10,000 generated cases', () => {
    expect(cases).toBeGreaterThanOrEqual(10_000);
  });
});
