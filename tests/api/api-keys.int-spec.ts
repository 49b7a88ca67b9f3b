import { createHash, randomUUID } from 'node:crypto';
import { type Client } from 'pg';
import {
  API_KEY_MESSAGES,
  API_KEYS_PER_USER,
  MESSAGES,
  type ApiKey,
  type ApiKeyScope,
  type CreatedApiKey,
  type UserData,
} from '@shortener/contracts';
import { waitFor, type ServiceProcess, type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import { someAddress, startUsersStack, type UsersStack } from './support/users-stack';
import { RawConnection } from './support/raw-http';
import { signIn } from './support/sign-in';

// API keys (issue 28, item 3) over the whole stack from its builds, real PostgreSQL, Redis
// and Kafka, users signed in through the OAuth2 mock; two gateway instances, as a
// Deployment with replicas runs them. Each client poses as its own address (loopback's
// X-Forwarded-For is believed here), so the per-address limits stay out of the way.

const run = randomUUID().slice(0, 8);
const USERS = {
  alice: { sub: `keys-alice-${run}`, name: 'Alice Keys', picture: '', email: 'a@example.com' },
  bob: { sub: `keys-bob-${run}`, name: 'Bob Keys', picture: '', email: 'b@example.com' },
  carol: { sub: `keys-carol-${run}`, name: 'Carol Keys', picture: '', email: 'c@example.com' },
};
/** Calls per key per window here: small, so the limit is reached in a few calls. */
const KEY_LIMIT = 12;
const KEY_PATTERN = /^shk_([0-9A-Za-z]{10})_[0-9A-Za-z]{40}$/;

const uniqueUrl = (): string => `https://example.com/keys/${randomUUID()}`;

describe('API keys', () => {
  let started: UsersStack;
  let stack: Stack;
  let second: ServiceProcess;
  let db: Client;
  let alice: Browser;
  let bob: Browser;

  /** A call as a script makes it: the key, no cookie, no X-Requested-With. */
  function withKey(
    key: string,
    path: string,
    init: RequestInit = {},
    origin = stack.url,
  ): Promise<Response> {
    return fetch(`${origin}${path}`, {
      ...init,
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${key}`,
        'x-forwarded-for': someAddress(),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  }

  async function createKey(
    browser: Browser,
    scopes: readonly ApiKeyScope[],
    name = `key ${randomUUID().slice(0, 6)}`,
  ): Promise<CreatedApiKey> {
    const response = await browser.api(`${stack.url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, scopes }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as CreatedApiKey;
  }

  async function listKeys(browser: Browser): Promise<ApiKey[]> {
    const response = await browser.api(`${stack.url}/api/keys`);
    expect(response.status).toBe(200);
    return (await response.json()) as ApiKey[];
  }

  async function shortenWithKey(key: string, origin = stack.url): Promise<string> {
    const query = new URLSearchParams({ url: uniqueUrl(), days: '30' });
    const response = await withKey(
      key,
      `/api/shorten/?${query.toString()}`,
      { method: 'POST' },
      origin,
    );
    expect(response.status).toBe(201);
    return ((await response.json()) as { url: string }).url;
  }

  async function shortenSignedIn(browser: Browser): Promise<string> {
    const query = new URLSearchParams({ url: uniqueUrl() });
    const response = await browser.api(`${stack.url}/api/shorten/?${query.toString()}`, {
      method: 'POST',
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { url: string }).url;
  }

  async function signedIn(user: keyof typeof USERS): Promise<Browser> {
    const browser = new Browser({ 'x-forwarded-for': someAddress() });
    await signIn(browser, stack.url, user);
    return browser;
  }

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: { SIGN_IN_RATE_LIMIT: '1000', API_KEY_RATE_LIMIT: String(KEY_LIMIT) },
      serviceEnv: { auth: { API_KEY_PURGE_INTERVAL_MS: '1000' } },
    });
    ({ stack, db } = started);
    second = await stack.add('gateway');
    alice = await signedIn('alice');
    bob = await signedIn('bob');
  });

  afterAll(async () => {
    await started?.stop();
  });

  it('is made with a session, shown whole once, then listed by name, scopes and dates only', async () => {
    const before = Date.now();
    const created = await createKey(alice, ['links:write', 'links:read'], 'deploy script');
    expect(created.key).toMatch(KEY_PATTERN);
    const id = KEY_PATTERN.exec(created.key)?.[1];
    expect(created).toEqual({
      id,
      label: `shk_${id}`,
      name: 'deploy script',
      scopes: ['links:write', 'links:read'],
      createdAt: expect.any(Number) as unknown,
      key: created.key,
    });
    expect(created.createdAt).toBeGreaterThanOrEqual(before - 5000);
    const listed = (await listKeys(alice)).find((key) => key.id === id);
    expect(listed).toEqual({ ...created, key: undefined });
    expect(JSON.stringify(await listKeys(alice))).not.toContain(created.key.slice(15));
    // Bob sees none of Alice's keys.
    expect((await listKeys(bob)).map((key) => key.id)).not.toContain(id);
  });

  it('keeps only the SHA-256 of a key: no column holds it or its secret', async () => {
    const { id, key } = await createKey(alice, ['links:read']);
    const { rows } = await db.query<{ row: string; secret_hash: string }>(
      'SELECT row_to_json(k)::text AS row, secret_hash FROM auth.api_keys k WHERE id = $1',
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(rows[0]!.row).not.toContain(key.slice(15));
  });

  it('shortens, lists, reads stats and deletes by scope, with no cookie nor X-Requested-With', async () => {
    const writer = await createKey(alice, ['links:write']);
    const reader = await createKey(alice, ['links:read', 'stats:read']);
    const code = await shortenWithKey(writer.key);

    const user = await withKey(reader.key, '/api/user');
    expect(user.status).toBe(200);
    const data = (await user.json()) as UserData;
    expect(data.fullName).toBe(USERS.alice.name);
    const link = data.urls.find((url) => url.urlID === code);
    expect(link).toBeDefined();
    // Signed in: the 30 days asked for, not the anonymous 7.
    expect(link!.expiresAt - Date.parse(link!.createdAt)).toBe(30 * 86_400_000);

    // The link pages (another helper's call): taken by its entry's scope, as every call is.
    const page = await withKey(reader.key, `/api/links?q=${code}`);
    expect(page.status).toBe(200);
    expect(JSON.stringify(await page.json())).toContain(code);
    expect((await withKey(writer.key, '/api/links')).status).toBe(403);

    expect((await withKey(reader.key, `/api/stats/${code}?range=7d`)).status).toBe(200);
    expect((await withKey(reader.key, `/api/visitors/${code}`)).status).toBe(404); // no visits yet
    const csv = await withKey(reader.key, `/api/stats/${code}/visits.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    await csv.text();

    const removed = await withKey(writer.key, `/api/delete/${code}`, { method: 'POST' });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ loggedIn: true });
    expect((await withKey(reader.key, `/api/stats/${code}`)).status).toBe(404);

    // Each key's last use is known, to about a minute.
    const keys = await listKeys(alice);
    for (const used of [writer, reader]) {
      expect(keys.find((key) => key.id === used.id)?.lastUsedAt).toEqual(expect.any(Number));
    }
  });

  it("writes a key's last use at most once a minute, however many instances look it up", async () => {
    const { id, key } = await createKey(alice, ['links:read']);
    const lastUsed = async (): Promise<Date | null> =>
      (
        await db.query<{ last_used_at: Date | null }>(
          'SELECT last_used_at FROM auth.api_keys WHERE id = $1',
          [id],
        )
      ).rows[0]!.last_used_at;
    expect(await lastUsed()).toBeNull();
    expect((await withKey(key, '/api/user')).status).toBe(200);
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    // The other instance has never seen the key: it asks auth, which only reads.
    expect((await withKey(key, '/api/user', {}, second.url)).status).toBe(200);
    expect(await lastUsed()).toEqual(first);
  });

  it.each([
    [
      'links:read',
      'shorten',
      'POST',
      () => `/api/shorten/?url=${encodeURIComponent(uniqueUrl())}`,
      'links:write',
    ],
    ['stats:read', 'delete', 'POST', (code: string) => `/api/delete/${code}`, 'links:write'],
    ['links:write', 'the link list', 'GET', () => '/api/user', 'links:read'],
    ['links:write', 'stats', 'GET', (code: string) => `/api/stats/${code}`, 'stats:read'],
    ['links:read', 'visitors', 'GET', (code: string) => `/api/visitors/${code}`, 'stats:read'],
    [
      'links:read',
      'the CSV',
      'GET',
      (code: string) => `/api/stats/${code}/visits.csv`,
      'stats:read',
    ],
  ] as const)(
    'refuses a %s key %s: 403 naming the scope, nothing done',
    async (has, _call, method, path, needs) => {
      const code = await shortenSignedIn(alice);
      const { key } = await createKey(alice, [has]);
      const response = await withKey(key, path(code), { method });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ message: API_KEY_MESSAGES.missingScope(needs) });
      const user = (await (await alice.api(`${stack.url}/api/user`)).json()) as UserData;
      expect(user.urls.map((url) => url.urlID)).toContain(code);
    },
  );

  it('refuses a revoked key at once (401), on this gateway instance and on another that had it in memory', async () => {
    const { id, key } = await createKey(alice, ['links:read']);
    // Both instances now remember the key.
    expect((await withKey(key, '/api/user')).status).toBe(200);
    expect((await withKey(key, '/api/user', {}, second.url)).status).toBe(200);

    const revoked = await alice.api(`${stack.url}/api/keys/${id}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(204);
    for (const origin of [second.url, stack.url]) {
      const response = await withKey(key, '/api/user', {}, origin);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      expect(await response.json()).toEqual({ message: API_KEY_MESSAGES.invalid });
    }
    expect((await listKeys(alice)).map((listed) => listed.id)).not.toContain(id);
    // Gone: a second revoke, like a revoke of another's key, finds nothing.
    const again = await alice.api(`${stack.url}/api/keys/${id}/revoke`, { method: 'POST' });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ message: API_KEY_MESSAGES.notFound });
    const { rows } = await db.query<{ revoked: boolean }>(
      'SELECT revoked_at IS NOT NULL AS revoked FROM auth.api_keys WHERE id = $1',
      [id],
    );
    expect(rows).toEqual([{ revoked: true }]);
  });

  it('purges a key revoked longer ago than API_KEY_REVOKED_RETENTION_DAYS (30), and keeps a recently revoked one', async () => {
    const old = await createKey(alice, ['links:read']);
    const recent = await createKey(alice, ['links:read']);
    for (const { id } of [old, recent]) {
      const revoked = await alice.api(`${stack.url}/api/keys/${id}/revoke`, { method: 'POST' });
      expect(revoked.status).toBe(204);
    }
    await db.query(
      `UPDATE auth.api_keys SET revoked_at = now() - interval '30 days 1 minute' WHERE id = $1`,
      [old.id],
    );
    await db.query(
      `UPDATE auth.api_keys SET revoked_at = now() - interval '29 days 23 hours' WHERE id = $1`,
      [recent.id],
    );
    const kept = async (): Promise<string[]> =>
      (
        await db.query<{ id: string }>('SELECT id FROM auth.api_keys WHERE id = ANY($1)', [
          [old.id, recent.id],
        ])
      ).rows.map((row) => row.id);
    await waitFor(async () => !(await kept()).includes(old.id), {
      what: 'the key revoked 30 days ago purged',
      timeoutMs: 10_000,
    });
    expect(await kept()).toEqual([recent.id]);
  });

  it("revokes only its owner's keys: another user's revoke is 404 and the key still works", async () => {
    const { id, key } = await createKey(alice, ['links:read']);
    const response = await bob.api(`${stack.url}/api/keys/${id}/revoke`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect((await withKey(key, '/api/user')).status).toBe(200);
  });

  it.each([
    ['an unknown key', `shk_${'A'.repeat(10)}_${'b'.repeat(40)}`],
    ['a malformed key', 'shk_short'],
    ['a key of another scheme', 'not-a-key'],
  ])('answers 401 to %s', async (_what, key) => {
    const response = await withKey(key, '/api/user');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: API_KEY_MESSAGES.invalid });
  });

  it('answers 401 to an Authorization header that is not a bearer one', async () => {
    const response = await fetch(`${stack.url}/api/user`, {
      headers: { authorization: 'Basic YWxpY2U6c2VjcmV0', 'x-forwarded-for': someAddress() },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: API_KEY_MESSAGES.notBearer });
  });

  it("cannot reach another user's links: 404 as for a session, the link untouched", async () => {
    const code = await shortenSignedIn(alice);
    const { key } = await createKey(bob, ['links:write', 'links:read', 'stats:read']);
    for (const [method, path] of [
      ['POST', `/api/delete/${code}`],
      ['GET', `/api/stats/${code}`],
      ['GET', `/api/visitors/${code}`],
      ['GET', `/api/stats/${code}/visits.csv`],
    ] as const) {
      const response = await withKey(key, path, { method });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(await response.json()).toEqual({ message: MESSAGES.urlNotFound });
    }
    const user = (await (await withKey(key, '/api/user')).json()) as UserData;
    expect(user.fullName).toBe(USERS.bob.name);
    expect(user.urls.map((url) => url.urlID)).not.toContain(code);
    const own = (await (await alice.api(`${stack.url}/api/user`)).json()) as UserData;
    expect(own.urls.map((url) => url.urlID)).toContain(code);
  });

  it('refuses a call with both a session cookie and a key (400), and shortens nothing', async () => {
    const { key } = await createKey(alice, ['links:write', 'links:read']);
    const url = uniqueUrl();
    const response = await alice.api(`${stack.url}/api/shorten/?url=${encodeURIComponent(url)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: API_KEY_MESSAGES.both });
    const user = (await (await alice.api(`${stack.url}/api/user`)).json()) as UserData;
    expect(user.urls.map((link) => link.originalUrl)).not.toContain(url);
  });

  it('never manages keys, nor opens the live stream, with a key (403); signing out with one ends nothing', async () => {
    const { id, key } = await createKey(alice, ['links:write', 'links:read', 'stats:read']);
    const code = await shortenWithKey(key);
    for (const [method, path, body] of [
      ['GET', '/api/keys', undefined],
      ['POST', '/api/keys', JSON.stringify({ name: 'more', scopes: ['links:read'] })],
      ['POST', `/api/keys/${id}/revoke`, undefined],
      ['GET', `/api/stats/${code}/live`, undefined],
    ] as const) {
      const response = await withKey(key, path, {
        method,
        ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
      });
      expect({ path, status: response.status }).toEqual({ path, status: 403 });
      expect(await response.json()).toEqual({ message: API_KEY_MESSAGES.sessionOnly });
    }
    const logout = await withKey(key, '/logout', { method: 'POST' });
    expect(logout.status).toBeGreaterThanOrEqual(300);
    expect((await listKeys(alice)).map((listed) => listed.id)).toContain(id);
    expect((await withKey(key, '/api/user')).status).toBe(200);
  });

  it(`limits each key to ${KEY_LIMIT} calls a window: 429 with Retry-After, other keys unaffected`, async () => {
    const { key } = await createKey(alice, ['links:read']);
    const other = await createKey(alice, ['links:read']);
    for (let call = 0; call < KEY_LIMIT; call += 1) {
      expect((await withKey(key, '/api/user')).status).toBe(200);
    }
    const refused = await withKey(key, '/api/user');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /^Too many requests with this API key: please wait \d+ seconds? and try again\.$/,
    );
    // Counted for every instance, not each on its own.
    expect((await withKey(key, '/api/user', {}, second.url)).status).toBe(429);
    expect((await withKey(other.key, '/api/user')).status).toBe(200);
  });

  it.each([
    ['no name', { scopes: ['links:read'] }, API_KEY_MESSAGES.nameRequired],
    ['a blank name', { name: '   ', scopes: ['links:read'] }, API_KEY_MESSAGES.nameRequired],
    [
      'a name too long',
      { name: 'x'.repeat(101), scopes: ['links:read'] },
      API_KEY_MESSAGES.nameTooLong,
    ],
    ['no scopes', { name: 'k', scopes: [] }, API_KEY_MESSAGES.scopesRequired],
    ['an unknown scope', { name: 'k', scopes: ['admin'] }, API_KEY_MESSAGES.unknownScope],
  ])('refuses to make a key with %s (400), and makes none', async (_what, body, message) => {
    const before = (await listKeys(alice)).length;
    const response = await alice.api(`${stack.url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message });
    expect(await listKeys(alice)).toHaveLength(before);
  });

  it(`holds ${API_KEYS_PER_USER} live keys per user: past that 409, even for requests racing for the last place`, async () => {
    const carol = await signedIn('carol');
    const make = (n: number) =>
      carol.api(`${stack.url}/api/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `key ${n}`, scopes: ['links:read'] }),
      });
    for (let n = 1; n < API_KEYS_PER_USER; n += 1) expect((await make(n)).status).toBe(201);
    const raced = await Promise.all([make(100), make(101), make(102)]);
    expect(raced.map((response) => response.status).sort()).toEqual([201, 409, 409]);
    const refused = raced.find((response) => response.status === 409)!;
    expect(await refused.json()).toEqual({ message: API_KEY_MESSAGES.tooMany });
    expect(await listKeys(carol)).toHaveLength(API_KEYS_PER_USER);
  });

  it('manages keys only with X-Requested-With and a session', async () => {
    const plain = new Browser({ 'x-forwarded-for': someAddress() });
    await signIn(plain, stack.url, 'alice');
    const withoutHeader = await plain.fetch(`${stack.url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'csrf', scopes: ['links:write'] }),
    });
    expect(withoutHeader.status).toBe(403);
    const anonymous = await new Browser({ 'x-forwarded-for': someAddress() }).api(
      `${stack.url}/api/keys`,
    );
    expect(anonymous.status).toBe(401);
  });

  describe('hostile Authorization headers', () => {
    async function raw(headers: string): Promise<{ status: number; body: string }> {
      const connection = await RawConnection.open(stack.url);
      connection.write(
        `GET /api/user HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: ${someAddress()}\r\n` +
          `${headers}Connection: close\r\n\r\n`,
      );
      const answer = await connection.next();
      connection.socket.destroy();
      if (!answer) throw new Error('no answer');
      return answer;
    }

    it('refuses the header twice (400), even when both carry a good key', async () => {
      const { key } = await createKey(alice, ['links:read']);
      const answer = await raw(`Authorization: Bearer ${key}\r\nAuthorization: Bearer ${key}\r\n`);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({ message: API_KEY_MESSAGES.repeated });
    });

    it('answers 401 to a long one without asking anyone, and 431 to one past the header limit', async () => {
      const long = await raw(`Authorization: Bearer shk_${'a'.repeat(8000)}\r\n`);
      expect(long.status).toBe(401);
      const huge = await raw(`Authorization: Bearer ${'a'.repeat(70_000)}\r\n`);
      expect(huge.status).toBe(431);
      // Still serving.
      const { key } = await createKey(alice, ['links:read']);
      expect((await withKey(key, '/api/user')).status).toBe(200);
    });

    it('answers 401 to control and non-ASCII characters in the key', async () => {
      const answer = await raw(`Authorization: Bearer shk_\u00e9\u00e9\t${'a'.repeat(50)}\r\n`);
      expect(answer.status).toBe(401);
    });
  });
});
