import { type Client } from 'pg';
import { LOGGED_IN_COOKIE, MESSAGES, SESSION_COOKIE } from '@shortener/contracts';
import {
  freePort,
  startServiceProcess,
  testServers,
  type OAuth2Mock,
  type ServiceProcess,
  type Stack,
} from '@shortener/testkit';
import { Browser, locationOf } from './support/browser';
import { signIn } from './support/sign-in';
import { startUsersStack, type UsersStack } from './support/users-stack';

// Google sign-in end to end: the whole set of services from their builds, a local OAuth2
// provider standing in for Google, and a cookie-keeping client walking the redirects.

const ALICE = {
  sub: `alice-${Date.now()}`,
  name: 'Alice Example',
  picture: 'https://images.example/alice.png',
  email: 'alice@example.com',
};

describe('sign-in through the gateway', () => {
  let started: UsersStack;
  let provider: OAuth2Mock;
  let stack: Stack;
  let db: Client;

  beforeAll(async () => {
    started = await startUsersStack(
      { alice: ALICE },
      {
        // One client address signs in many times here: the limits are not under test (and the
        // API limit counts in the shared Redis, so other suites' calls from 127.0.0.1 count).
        // The gateway remembers no session (its cache is security-sessions' subject), so a
        // session ended in the database is ended for the next request, with nothing to wait for.
        env: { SESSION_CACHE_MS: '0', SIGN_IN_RATE_LIMIT: '1000', API_RATE_LIMIT: '100000' },
      },
    );
    ({ provider, stack, db } = started);
  });

  afterAll(async () => {
    await started?.stop();
  });

  it('signs in from /login?from=/profile, lands on /profile with both cookies, and /api/user knows the user', async () => {
    const browser = new Browser();
    const trip = await signIn(browser, stack.url, 'alice', '/profile');

    expect(trip.authorizeUrl.startsWith(provider.authorizationUrl)).toBe(true);
    const authorize = new URL(trip.authorizeUrl);
    expect(authorize.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${stack.url}/auth/google/callback`);

    expect(trip.callback.status).toBe(302);
    expect(trip.landedAt).toBe(`${stack.url}/profile`);
    const session = browser.cookie(SESSION_COOKIE);
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'lax', path: '/' });
    expect(session?.value).toMatch(/^[\w-]{43}$/);
    expect(browser.cookie(LOGGED_IN_COOKIE)).toMatchObject({
      value: 'true',
      httpOnly: false,
      sameSite: 'lax',
    });
    // The state cookie did its job once and is gone.
    expect(browser.cookie('oauth_state')).toBeUndefined();

    const page = await browser.fetch(trip.landedAt!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');

    const user = await browser.api(`${stack.url}/api/user`);
    expect(user.status).toBe(200);
    expect(await user.json()).toEqual({
      fullName: ALICE.name,
      profilePicture: ALICE.picture,
      urls: [],
    });

    const { rows } = await db.query<{ full_name: string; email: string }>(
      'SELECT full_name, email FROM auth.users WHERE google_id = $1',
      [ALICE.sub],
    );
    expect(rows).toEqual([{ full_name: ALICE.name, email: ALICE.email }]);
  });

  it.each([
    ['https://evil.example', 'an absolute URL'],
    ['//evil.example', 'a protocol-relative URL'],
    ['/\\evil.example', "'/\\' (read as '//' by browsers)"],
    ['/\t/evil.example', 'a control character'],
    ['javascript:alert(1)', 'another scheme'],
    ['/r/abc1234', 'a short link, which would end off-site'],
    ['/R/abc1234', 'a short link in capitals'],
    ['/api/user', 'an API answer, not a page'],
  ])('lands on / after signing in with from=%j (%s)', async (from) => {
    const trip = await signIn(new Browser(), stack.url, 'alice', from);
    expect(trip.landedAt).toBe(`${stack.url}/`);
  });

  it('lands on / when /login has no from', async () => {
    const trip = await signIn(new Browser(), stack.url, 'alice', null);
    expect(trip.landedAt).toBe(`${stack.url}/`);
  });

  it('refuses a callback whose state was tampered with, and a replayed one, signing no one in', async () => {
    const browser = new Browser();
    const loginUrl = `${stack.url}/login?from=%2Fprofile`;
    const authorizeUrl = new URL(locationOf(await browser.fetch(loginUrl), loginUrl));
    authorizeUrl.searchParams.set('login_hint', 'alice');
    const callbackUrl = new URL(
      locationOf(await browser.fetch(authorizeUrl.toString()), authorizeUrl.toString()),
    );
    const goodState = callbackUrl.searchParams.get('state')!;

    const tampered = new URL(callbackUrl);
    tampered.searchParams.set(
      'state',
      `${goodState.slice(0, -1)}${goodState.endsWith('A') ? 'B' : 'A'}`,
    );
    const refused = await browser.fetch(tampered.toString());
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('could not be verified');
    expect(browser.cookie(SESSION_COOKIE)).toBeUndefined();
    expect(browser.cookie(LOGGED_IN_COOKIE)).toBeUndefined();

    // The state is good for one try: the genuine callback after a failed one is refused too.
    const replay = await browser.fetch(callbackUrl.toString());
    expect(replay.status).toBe(400);
    expect(browser.cookie(SESSION_COOKIE)).toBeUndefined();
  });

  it('refuses a callback from another browser (no state cookie)', async () => {
    const starter = new Browser();
    const loginUrl = `${stack.url}/login?from=%2Fprofile`;
    const authorizeUrl = new URL(locationOf(await starter.fetch(loginUrl), loginUrl));
    const callbackUrl = locationOf(
      await starter.fetch(authorizeUrl.toString()),
      authorizeUrl.toString(),
    );

    const victim = new Browser();
    const response = await victim.fetch(callbackUrl);
    expect(response.status).toBe(400);
    expect(victim.cookie(SESSION_COOKIE)).toBeUndefined();
  });

  it('answers a callback without a code with 400 and signs no one in', async () => {
    const browser = new Browser();
    const loginUrl = `${stack.url}/login?from=%2Fprofile`;
    const state = new URL(locationOf(await browser.fetch(loginUrl), loginUrl)).searchParams.get(
      'state',
    );
    const response = await browser.fetch(
      `${stack.url}/auth/google/callback?state=${encodeURIComponent(state!)}`,
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('no authorization code');
    expect(browser.cookie(SESSION_COOKIE)).toBeUndefined();
  });

  it('sends a user who says no at the provider back where they were, signed out', async () => {
    const browser = new Browser();
    const loginUrl = `${stack.url}/login?from=%2Fprofile%2Fabc1234`;
    const state = new URL(locationOf(await browser.fetch(loginUrl), loginUrl)).searchParams.get(
      'state',
    );
    const callbackUrl = `${stack.url}/auth/google/callback?error=access_denied&state=${encodeURIComponent(state!)}`;
    const response = await browser.fetch(callbackUrl);
    expect(response.status).toBe(302);
    expect(locationOf(response, callbackUrl)).toBe(`${stack.url}/profile/abc1234`);
    expect(browser.cookie(SESSION_COOKIE)).toBeUndefined();
  });

  it('treats a forged session cookie as signed out and clears the stale loggedIn cookie', async () => {
    const browser = new Browser();
    browser.setCookie(SESSION_COOKIE, 'A'.repeat(43));
    browser.setCookie(LOGGED_IN_COOKIE, 'true');
    const response = await browser.api(`${stack.url}/api/user`, {
      headers: { referer: `${stack.url}/profile/abc1234` },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      message: MESSAGES.unauthorized,
      callBack: '/login?from=%2Fprofile%2Fabc1234',
    });
    expect(browser.cookie(LOGGED_IN_COOKIE)).toBeUndefined();
    expect(browser.cookie(SESSION_COOKIE)).toBeUndefined();
  });

  it("sends a 401's callBack to /profile when the Referer is another site", async () => {
    const response = await new Browser().api(`${stack.url}/api/user`, {
      headers: { referer: 'https://evil.example/profile/x' },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      message: MESSAGES.unauthorized,
      callBack: '/login?from=%2Fprofile',
    });
  });

  it('treats an expired session as signed out', async () => {
    const browser = new Browser();
    await signIn(browser, stack.url, 'alice');
    expect((await browser.api(`${stack.url}/api/user`)).status).toBe(200);

    await db.query(
      `UPDATE auth.sessions SET expires_at = now() - interval '1 second'
       WHERE user_id = (SELECT id FROM auth.users WHERE google_id = $1)`,
      [ALICE.sub],
    );
    const response = await browser.api(`${stack.url}/api/user`);
    expect(response.status).toBe(401);
    expect(browser.cookie(LOGGED_IN_COOKIE)).toBeUndefined();
  });

  it('signs out: ends the session, clears both cookies, and goes to /', async () => {
    const browser = new Browser();
    await signIn(browser, stack.url, 'alice');
    const session = browser.cookie(SESSION_COOKIE)!.value;
    expect((await browser.api(`${stack.url}/api/user`)).status).toBe(200);

    // The web app's 'Sign out' button: a form POST from our own origin.
    const response = await browser.fetch(`${stack.url}/logout`, {
      method: 'POST',
      headers: { origin: stack.url },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/');
    expect(browser.cookie(SESSION_COOKIE)).toBeUndefined();
    expect(browser.cookie(LOGGED_IN_COOKIE)).toBeUndefined();

    // The old id is dead at once, even for a client that kept it.
    const kept = new Browser();
    kept.setCookie(SESSION_COOKIE, session);
    expect((await kept.api(`${stack.url}/api/user`)).status).toBe(401);
  });
});

describe('auth service without Google credentials', () => {
  let auth: ServiceProcess;

  beforeAll(async () => {
    auth = await startServiceProcess('auth', await freePort(), {
      INTERNAL_API_SECRET: 'not-configured-secret-0123',
      DATABASE_URL: testServers.databaseUrl,
      GOOGLE_CLIENT_ID: '',
      GOOGLE_CLIENT_SECRET: '',
    });
  });

  afterAll(async () => {
    await auth?.stop();
  });

  it('starts, and /login answers 503 saying what to set', async () => {
    const response = await fetch(`${auth.url}/login?from=/profile`, { redirect: 'manual' });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toContain('text/html');
    const page = await response.text();
    expect(page).toContain('Google sign-in is not configured');
    expect(page).toContain('GOOGLE_CLIENT_ID');
    expect(page).toContain('GOOGLE_CLIENT_SECRET');
  });
});
