// Records the previous release's wire formats into tests/compat/fixtures/previous-release.json,
// made by the previous release's own build (scripts/previous-release.mjs), never by hand:
// - internal tokens, signed by its chassis;
// - link cache entries, invalidation messages and version notices, written by its link cache;
// - visit records (packed) and one-event messages, made by its visit codec;
// - internal API answers, given by its auth, links and analytics services (this checkout's
//   test kit starts them from the previous build, against the test servers, and the old
//   redirect service makes the visits).
// This release's tests (tests/compat/wire-formats.spec.ts) must accept every one of them.
//
//   npx tsc -b && DATABASE_URL=... REDIS_URL=... KAFKA_BROKERS=... node scripts/record-wire-formats.mjs
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensurePreviousRelease, previousCommit } from './previous-release.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const OUT = path.join(root, 'tests', 'compat', 'fixtures', 'previous-release.json');

const previous = await ensurePreviousRelease();
const old = (pkg) => require(path.join(previous, 'packages', pkg, 'dist', 'index.js'));
const chassis = old('chassis');
const contracts = old('contracts');
const linkCache = old('link-cache');
const { startStack, waitFor } = require(path.join(root, 'packages', 'testkit', 'dist', 'index.js'));

const SECRET = 'previous-release-fixture-secret';
const issuedAt = Date.now();

// Internal tokens: a GET without a body, a POST with one, for a user and for no one.
const tokenRequests = [
  { identity: { userId: randomUUID() }, request: { method: 'GET', path: '/internal/links' } },
  {
    identity: { userId: null },
    request: {
      method: 'POST',
      path: '/internal/links',
      body: '{"url":"https://example.com/a","days":7}',
    },
  },
  {
    identity: { userId: randomUUID() },
    request: { method: 'DELETE', path: '/internal/links/Ab3dE5g' },
  },
];
const tokens = tokenRequests.map(({ identity, request }) => ({
  identity,
  request,
  issuedAt,
  token: chassis.signInternalToken(SECRET, identity, request, issuedAt),
}));

// Link cache entries and the invalidation broadcast, as its link cache (RedisLinkCache) writes
// them: each entry signed for its code, with its link's version and lease; a removal published
// as the bare code, a change as "changed:<code>", and each change's version announced, signed.
// A release from before versioned entries is older than this script records from.
if (typeof linkCache.encodeVersionNotice !== 'function') {
  throw new Error(
    `${previousCommit()}: its link cache has no versioned entries; record from a later release`,
  );
}
const cacheKey = linkCache.linkCacheKey(SECRET);
const leaseUntil = issuedAt + linkCache.LEASE_MS;
const cachedLink = {
  url: 'https://example.com/cached?q=1',
  expiresAt: issuedAt + 86_400_000,
  version: issuedAt - 60_000,
};
const cacheEntries = [
  {
    code: 'Ab3dE5g',
    link: cachedLink,
    version: cachedLink.version,
    leaseUntil,
    value: linkCache.encodeLink(cacheKey, 'Ab3dE5g', cachedLink, leaseUntil),
  },
  {
    code: 'Zz9yX8w',
    link: null,
    version: issuedAt - 1_000,
    leaseUntil,
    value: linkCache.encodeGone(cacheKey, 'Zz9yX8w', issuedAt - 1_000, leaseUntil),
  },
];
const invalidations = [true, false].map((removed) => ({
  message: linkCache.encodeInvalidation({ code: 'Ab3dE5g', removed }),
  code: 'Ab3dE5g',
  removed,
}));
const versionNotices = [
  {
    message: linkCache.encodeVersionNotice(cacheKey, 'Ab3dE5g', cachedLink.version),
    code: 'Ab3dE5g',
    version: cachedLink.version,
  },
];

// Visit events as its codec writes them: a packed record of three and one JSON message.
const events = [
  {
    urlID: 'Ab3dE5g',
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
    referrer: 'https://news.example.org/',
  },
  { urlID: 'Ab3dE5g', ip: '2001:db8::1', userAgent: '', referrer: null },
  { urlID: 'Qw3rTy7', ip: '198.51.100.2', userAgent: 'curl/8.5.0', referrer: 'ünïcode ✓' },
].map((event, index) => ({
  schemaVersion: contracts.VISIT_EVENT_SCHEMA_VERSION,
  id: randomUUID(),
  timestamp: issuedAt - index,
  ...event,
}));
const visitMessages = [
  { form: 'packed record', events, value: contracts.encodeVisitRecord(events).toString('base64') },
  // A codec from before the one-event form had its own encoder publishes packed records only.
  ...(typeof contracts.encodeVisitEvent === 'function'
    ? [
        {
          form: 'one-event JSON',
          events: [events[0]],
          value: contracts.encodeVisitEvent(events[0]).toString('base64'),
        },
      ]
    : []),
];

// Internal API answers, from its services, on a scratch database that only its migrations
// made: what it answers on its own schema, whatever the test database holds.
const scratch = new URL(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shortener_test',
);
const scratchName = `shortener_wire_formats_${process.pid}`;
const admin = new pg.Client({ connectionString: new URL('/postgres', scratch).toString() });
await admin.connect();
await admin.query(`CREATE DATABASE ${scratchName}`);
scratch.pathname = `/${scratchName}`;
const dropScratch = async () => {
  await admin.query(`DROP DATABASE ${scratchName} WITH (FORCE)`);
  await admin.end();
};
const stack = await startStack({
  services: ['auth', 'links', 'analytics', 'redirect'],
  roots: { auth: previous, links: previous, analytics: previous, redirect: previous },
  env: { INTERNAL_API_SECRET: SECRET, DATABASE_URL: scratch.toString() },
}).catch(async (error) => {
  await dropScratch();
  throw error;
});
const answers = [];
try {
  const api = contracts.internalApi;
  const owner = randomUUID();
  async function call(name, identity, { params = {}, query = {}, body } = {}) {
    const endpoint = api[name];
    const target = contracts.internalPath(endpoint.route, params, query);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const token = chassis.signInternalToken(SECRET, identity, {
      method: endpoint.method,
      path: target,
      body: text,
    });
    const response = await fetch(`${stack.get(endpoint.service).url}${target}`, {
      method: endpoint.method,
      headers: {
        [contracts.INTERNAL_TOKEN_HEADER]: token,
        ...(text === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: text,
    });
    const raw = await response.text();
    const answer = {
      endpoint: name,
      status: response.status,
      body: endpoint.streams && response.ok ? raw : raw === '' ? undefined : JSON.parse(raw),
    };
    answers.push(answer);
    return answer;
  }
  const user = { userId: owner };
  const created = await call('createLink', user, {
    body: { url: 'https://example.com/recorded', days: 30 },
  });
  const code = created.body.urlID;
  if (created.status !== 201)
    throw new Error(`createLink answered ${created.status}: ${JSON.stringify(created.body)}`);
  await call('createLink', { userId: null }, { body: { url: 'ftp://not-http.example/' } });
  await call('listLinks', user);
  await call('listLinkCodes', user);
  await call('findLinks', user, { body: { codes: [code, 'Zz9yX8w'] } });
  await call('updateLink', user, { params: { code }, body: { days: 60 } });
  await call('updateLink', user, { params: { code }, body: { url: 'ftp://not-http.example/' } });
  await call('getLink', user, { params: { code } });
  await call('getLink', user, { params: { code: 'Zz9yX8w' } });
  await call('resolveLink', { userId: null }, { params: { code } });
  await call('resolveLink', { userId: null }, { params: { code: 'Zz9yX8w' } });
  for (const [ip, userAgent] of [
    [
      '203.0.113.9',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    ],
    ['198.51.100.4', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'],
  ]) {
    const redirect = await fetch(`${stack.get('redirect').url}/r/${code}`, {
      redirect: 'manual',
      headers: { 'user-agent': userAgent, 'x-forwarded-for': ip },
    });
    if (redirect.status !== 302) throw new Error(`/r/${code} answered ${redirect.status}`);
  }
  await waitFor(
    async () => {
      const counts = await fetch(`${stack.get('analytics').url}/internal/visit-counts`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [contracts.INTERNAL_TOKEN_HEADER]: chassis.signInternalToken(SECRET, user, {
            method: 'POST',
            path: '/internal/visit-counts',
            body: JSON.stringify({ codes: [code] }),
          }),
        },
        body: JSON.stringify({ codes: [code] }),
      });
      return ((await counts.json()).counts?.[code] ?? 0) === 2;
    },
    { what: 'the two visits stored', timeoutMs: 60_000, intervalMs: 250 },
  );
  await call('visitCounts', user, { body: { codes: [code, 'Zz9yX8w'] } });
  await call('visitsPage', user, { params: { code }, query: { limit: 1 } });
  await call('visitsPage', user, { params: { code }, query: { cursor: 'not-a-cursor' } });
  await call('linkStats', user, { params: { code }, query: { range: '24h' } });
  await call('linkStats', user, { params: { code }, query: { range: '45d' } });
  await call('visitsCsv', user, { params: { code } });
  await call('lookUpSession', { userId: null }, { body: { sessionId: 'no-such-session' } });
  // A key belongs to a user who signed in: one, as the auth service stores it.
  const scratchDb = new pg.Client({ connectionString: scratch.toString() });
  await scratchDb.connect();
  await scratchDb
    .query(
      `INSERT INTO auth.users (id, google_id, full_name, picture, email)
       VALUES ($1, $2, 'Recorded', 'https://example.com/recorded.png', 'recorded@example.com')`,
      [owner, `recorded-${owner}`],
    )
    .finally(() => scratchDb.end());
  const key = await call('createApiKey', user, {
    body: { name: 'recorded', scopes: ['links:read', 'stats:read'] },
  });
  if (key.status !== 201)
    throw new Error(`createApiKey answered ${key.status}: ${JSON.stringify(key.body)}`);
  await call('listApiKeys', user);
  await call('lookUpApiKey', { userId: null }, { body: { key: key.body.key } });
  await call('revokeApiKey', user, { params: { id: key.body.id } });
  await call('lookUpApiKey', { userId: null }, { body: { key: key.body.key } });
  await call('deleteLink', user, { params: { code } });
  await call('restoreLink', user, { params: { code } });
  await call('deleteLink', user, { params: { code } });
  await call('deleteLink', user, { params: { code: 'Zz9yX8w' } });
  await call('restoreLink', user, { params: { code: 'Zz9yX8w' } });
  await call('deleteVisits', { userId: null }, { body: { codes: [code] } });
} catch (error) {
  console.error(stack.output());
  throw error;
} finally {
  await stack.stop();
  await dropScratch();
}

writeFileSync(
  OUT,
  `${JSON.stringify(
    {
      commit: previousCommit(),
      recordedBy: 'scripts/record-wire-formats.mjs',
      secret: SECRET,
      tokens,
      cacheEntries,
      invalidations,
      versionNotices,
      visitMessages,
      answers,
    },
    null,
    2,
  )}\n`,
);
console.log(
  `${path.relative(root, OUT)}: ${tokens.length} tokens, ${cacheEntries.length} cache entries, ${visitMessages.length} visit messages, ${answers.length} answers`,
);
