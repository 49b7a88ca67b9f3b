import fc from 'fast-check';
import { SESSION_COOKIE, type UserData } from '@shortener/contracts';
import { Browser } from '../api/support/browser';
import { signIn } from '../api/support/sign-in';
import { rawRequest } from './support/raw-http';
import {
  alice,
  api,
  cases,
  checkAnswer,
  encode,
  firstCookie,
  gateway,
  headerText,
  note,
  runs,
  text,
  toUsOrProvider,
  trimmed,
  urlLike,
  useHostileStack,
  validHeaderText,
  SPECIAL,
  provider,
} from './support/hostile';

describe('hostile input: sessions: return paths, cookies, sign-out', () => {
  useHostileStack();

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
          // The rule of fromOwnOrigin (packages/chassis/src/same-origin.ts), on the headers as a server joins repeats.
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

  it('ran its 2,550 generated cases', () => {
    expect(cases).toBeGreaterThanOrEqual(2550);
  });
});
