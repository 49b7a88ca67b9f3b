import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { LOGGED_IN_COOKIE, SESSION_COOKIE } from '@shortener/contracts';
import { InternalClient } from '@shortener/chassis';
import { startStack, testServers, waitFor, type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import { signIn } from './support/sign-in';
import { startUsersStack, type UsersStack } from './support/users-stack';

// Security hardening of sign-in and sessions (issue 13, items 1, 5 and 14), on real servers:
// the whole set of services from their builds, the test database, a local OAuth2 provider.

const run = randomUUID().slice(0, 8);
const HTTPS_ORIGIN = 'https://short.example';
const SECURE_SESSION_COOKIE = '__Host-sid';

const ALICE = {
  sub: `sessions-alice-${run}`,
  name: 'Alice Sessions',
  picture: 'https://images.example/alice.png',
  email: 'alice@example.com',
};

describe('sessions over http, Google sign-in', () => {
  let started: UsersStack;
  let stack: Stack;
  let db: Client;
  let auth: InternalClient;

  /** The session's user as the auth service answers, past any gateway cache. */
  const lookUp = async (sessionId: string): Promise<number> =>
    (
      await auth.request('POST', '/internal/sessions/lookup', {
        identity: { userId: null },
        body: { sessionId },
      })
    ).status;

  beforeAll(async () => {
    started = await startUsersStack(
      { alice: ALICE },
      {
        // The gateway's session cache keeps its default 5 s: revocations must get past it.
        env: { SIGN_IN_RATE_LIMIT: '1000' },
        serviceEnv: { auth: { SESSION_PURGE_INTERVAL_MS: '1000' } },
      },
    );
    ({ stack, db } = started);
    auth = new InternalClient('auth', stack.get('auth').url, stack.secret);
  });

  afterAll(async () => {
    await started?.stop();
  });

  async function signedIn(): Promise<{ browser: Browser; session: string }> {
    const browser = new Browser();
    await signIn(browser, stack.url, 'alice');
    const session = browser.cookie(SESSION_COOKIE)?.value;
    if (!session) throw new Error('not signed in');
    return { browser, session };
  }

  it('GET /logout ends nothing: it answers a page whose button POSTs /logout', async () => {
    const { browser, session } = await signedIn();
    const response = await browser.fetch(`${stack.url}/logout`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const page = await response.text();
    expect(page).toMatch(/<form method="post" action="\/logout">/);
    expect(page).toContain('Sign out');
    expect(browser.cookie(SESSION_COOKIE)?.value).toBe(session);
    expect(browser.cookie(LOGGED_IN_COOKIE)?.value).toBe('true');
    expect(await lookUp(session)).toBe(200);
    expect((await browser.api(`${stack.url}/api/user`)).status).toBe(200);
  });

  it.each([
    ['an Origin of another site', { origin: 'https://evil.example' }],
    ['an opaque Origin', { origin: 'null' }],
    ['an Origin of another port', { origin: 'http://127.0.0.1:1' }],
    ['no Origin, Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['no Origin, Sec-Fetch-Site same-site', { 'sec-fetch-site': 'same-site' }],
  ])('refuses a POST /logout with %s: 403, session and cookies kept', async (_what, headers) => {
    const { browser, session } = await signedIn();
    const response = await browser.fetch(`${stack.url}/logout`, { method: 'POST', headers });
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(browser.cookie(SESSION_COOKIE)?.value).toBe(session);
    expect(await lookUp(session)).toBe(200);
    expect((await browser.api(`${stack.url}/api/user`)).status).toBe(200);
  });

  it.each([
    ['its Origin', (origin: string) => ({ origin })],
    ['Sec-Fetch-Site same-origin', () => ({ 'sec-fetch-site': 'same-origin' })],
  ])(
    'signs out on a same-origin POST /logout (%s), at once past the gateway cache',
    async (_what, headers) => {
      const { browser, session } = await signedIn();
      // The gateway now remembers this session for SESSION_CACHE_MS.
      expect((await browser.api(`${stack.url}/api/user`)).status).toBe(200);
      const response = await browser.fetch(`${stack.url}/logout`, {
        method: 'POST',
        headers: headers(stack.url),
      });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/');
      expect(browser.cookie(SESSION_COOKIE)).toBeUndefined();
      expect(browser.cookie(LOGGED_IN_COOKIE)).toBeUndefined();
      const kept = new Browser();
      kept.setCookie(SESSION_COOKIE, session);
      expect((await kept.api(`${stack.url}/api/user`)).status).toBe(401);
    },
  );

  it('signing in again revokes the session the browser carried, at once past the gateway cache', async () => {
    const { browser, session: first } = await signedIn();
    const kept = new Browser();
    kept.setCookie(SESSION_COOKIE, first);
    expect((await kept.api(`${stack.url}/api/user`)).status).toBe(200);

    const again = await signIn(browser, stack.url, 'alice');
    expect(again.callback.status).toBe(302);
    const second = browser.cookie(SESSION_COOKIE)?.value;
    expect(second).toMatch(/^[\w-]{43}$/);
    expect(second).not.toBe(first);

    expect(await lookUp(first)).toBe(404);
    expect((await kept.api(`${stack.url}/api/user`)).status).toBe(401);
    expect((await browser.api(`${stack.url}/api/user`)).status).toBe(200);
  });

  it('a session unused for SESSION_IDLE_DAYS (7) stops resolving, and the purge job deletes it', async () => {
    const { session } = await signedIn();
    await db.query(
      `UPDATE auth.sessions SET last_seen_at = now() - interval '7 days 1 minute'
       WHERE id_hash = encode(sha256($1::bytea), 'hex')`,
      [session],
    );
    expect(await lookUp(session)).toBe(404);
    await waitFor(
      async () => {
        const { rows } = await db.query(
          `SELECT 1 FROM auth.sessions WHERE id_hash = encode(sha256($1::bytea), 'hex')`,
          [session],
        );
        return rows.length === 0;
      },
      { what: 'the idle session purged', timeoutMs: 10_000 },
    );
  });

  it('using a session slides its last-seen time, written at most once a minute', async () => {
    const { session } = await signedIn();
    const byId = `WHERE id_hash = encode(sha256($1::bytea), 'hex')`;
    await db.query(
      `UPDATE auth.sessions SET last_seen_at = now() - interval '6 days 23 hours' ${byId}`,
      [session],
    );
    expect(await lookUp(session)).toBe(200);
    const { rows: slid } = await db.query<{ age: number }>(
      `SELECT extract(epoch FROM now() - last_seen_at)::float AS age FROM auth.sessions ${byId}`,
      [session],
    );
    expect(slid[0]!.age).toBeLessThan(10);

    // Seen 30 s ago: a lookup now does not write again.
    await db.query(
      `UPDATE auth.sessions SET last_seen_at = now() - interval '30 seconds' ${byId}`,
      [session],
    );
    expect(await lookUp(session)).toBe(200);
    const { rows: kept } = await db.query<{ age: number }>(
      `SELECT extract(epoch FROM now() - last_seen_at)::float AS age FROM auth.sessions ${byId}`,
      [session],
    );
    expect(kept[0]!.age).toBeGreaterThanOrEqual(29);
  });
});

describe('sessions over https, local sign-in', () => {
  let stack: Stack;
  let db: Client;
  // Unique per run: local names are one account per spelling, across runs of the suite.
  const alice = `Alice ${run}`;

  beforeAll(async () => {
    stack = await startStack({
      env: { PUBLIC_ORIGIN: HTTPS_ORIGIN, SIGN_IN_RATE_LIMIT: '1000' },
      serviceEnv: {
        auth: { LOCAL_SIGN_IN: 'true', GOOGLE_CLIENT_ID: '', GOOGLE_CLIENT_SECRET: '' },
      },
    });
    db = new Client({ connectionString: testServers.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  /** The local sign-in form, posted from the product's own origin. */
  const signInLocally = (browser: Browser, name: string): Promise<Response> =>
    browser.fetch(`${stack.url}/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: HTTPS_ORIGIN },
      body: new URLSearchParams({ name, from: '/profile' }).toString(),
    });

  const fullNameOf = async (browser: Browser): Promise<string | null> => {
    const response = await browser.api(`${stack.url}/api/user`);
    return response.status === 200
      ? ((await response.json()) as { fullName: string }).fullName
      : null;
  };

  it('names the session cookie __Host-sid (Secure, Path=/, no Domain); the gateway reads that name only', async () => {
    const browser = new Browser();
    const response = await signInLocally(browser, alice);
    expect(response.status).toBe(302);
    const lines = response.headers.getSetCookie();
    const sessionLine = lines.find((line) => line.startsWith(`${SECURE_SESSION_COOKIE}=`));
    expect(sessionLine).toBeDefined();
    expect(sessionLine).toMatch(/; Path=\/(;|$)/);
    expect(sessionLine).toMatch(/; Secure(;|$)/);
    expect(sessionLine).toMatch(/; HttpOnly(;|$)/);
    expect(sessionLine).not.toMatch(/Domain=/i);
    expect(lines.some((line) => line.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    const loggedIn = lines.find((line) => line.startsWith(`${LOGGED_IN_COOKIE}=true`));
    expect(loggedIn).toMatch(/; Secure(;|$)/);

    expect(await fullNameOf(browser)).toBe(alice);
    const session = browser.cookie(SECURE_SESSION_COOKIE)!.value;
    const plain = new Browser();
    plain.setCookie(SESSION_COOKIE, session);
    expect((await plain.api(`${stack.url}/api/user`)).status).toBe(401);

    // Signing out clears the cookie under the name it was set with.
    const out = await browser.fetch(`${stack.url}/logout`, {
      method: 'POST',
      headers: { origin: HTTPS_ORIGIN },
    });
    expect(out.status).toBe(302);
    expect(
      out.headers.getSetCookie().some((line) => line.startsWith(`${SECURE_SESSION_COOKIE}=;`)),
    ).toBe(true);
    expect(browser.cookie(SECURE_SESSION_COOKIE)).toBeUndefined();
  });

  it('"  aLiCe " neither signs in as Alice nor renames her; Alice keeps her name and links', async () => {
    const owner = new Browser();
    expect((await signInLocally(owner, alice)).status).toBe(302);
    const shortened = await owner.api(
      `${stack.url}/api/shorten/?url=${encodeURIComponent(`https://example.com/${run}`)}&days=7`,
      { method: 'POST' },
    );
    expect(shortened.status).toBe(201);

    const intruder = new Browser();
    const response = await signInLocally(intruder, `  aLiCe ${run.toUpperCase()} `);
    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(await response.text()).toContain('spelled differently');
    expect(intruder.cookie(SECURE_SESSION_COOKIE)).toBeUndefined();
    expect(await fullNameOf(intruder)).toBeNull();

    // One local account of that name, in any case, still spelled as Alice spelled it.
    const { rows } = await db.query<{ full_name: string }>(
      `SELECT full_name FROM auth.users WHERE google_id LIKE 'local:%' AND lower(full_name) = $1`,
      [alice.toLowerCase()],
    );
    expect(rows).toEqual([{ full_name: alice }]);
    expect(await fullNameOf(owner)).toBe(alice);
  });

  it.each([
    ['a Cyrillic А', `\u0410lice ${run}`],
    ['a Greek Α and a Cyrillic і', `\u0391l\u0456ce ${run}`],
    ['a zero-width space', `Al\u200bice ${run}`],
    ['a right-to-left mark', `Alice\u200f ${run}`],
  ])('makes no second account that looks like Alice from %s', async (_what, spelling) => {
    expect((await signInLocally(new Browser(), alice)).status).toBe(302);
    const browser = new Browser();
    const response = await signInLocally(browser, spelling);
    expect([400, 409]).toContain(response.status);
    expect(browser.cookie(SECURE_SESSION_COOKIE)).toBeUndefined();
    const { rows } = await db.query('SELECT 1 FROM auth.users WHERE full_name = $1', [spelling]);
    expect(rows).toHaveLength(0);
  });

  it('signs in under the same account for a compatibility spelling of the same name (full-width)', async () => {
    expect((await signInLocally(new Browser(), alice)).status).toBe(302);
    const browser = new Browser();
    const wide = alice.replace('A', '\uff21');
    expect((await signInLocally(browser, wide)).status).toBe(302);
    expect(await fullNameOf(browser)).toBe(alice);
  });

  it('a local sign-in in a browser that carries a session revokes that session', async () => {
    const browser = new Browser();
    expect((await signInLocally(browser, alice)).status).toBe(302);
    const first = browser.cookie(SECURE_SESSION_COOKIE)!.value;
    const kept = new Browser();
    kept.setCookie(SECURE_SESSION_COOKIE, first);
    expect(await fullNameOf(kept)).toBe(alice);

    expect((await signInLocally(browser, `Bob ${run}`)).status).toBe(302);
    expect(browser.cookie(SECURE_SESSION_COOKIE)!.value).not.toBe(first);
    expect(await fullNameOf(browser)).toBe(`Bob ${run}`);
    expect(await fullNameOf(kept)).toBeNull();
  });
});
