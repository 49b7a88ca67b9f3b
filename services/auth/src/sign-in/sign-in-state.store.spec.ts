import type { CookieOptions, Request, Response } from 'express';
import { CookieStateStore, SIGN_IN_STATE_COOKIE } from './sign-in-state.store';

/** A browser's cookie jar for one request/response pair at a time. */
class Jar {
  readonly cookies = new Map<string, { value: string; options: CookieOptions }>();

  exchange(query: Record<string, unknown> = {}): Request {
    const res = {
      cookie: (name: string, value: string, options: CookieOptions) =>
        this.cookies.set(name, { value, options }),
      clearCookie: (name: string) => this.cookies.delete(name),
    } as unknown as Response;
    return {
      query,
      cookies: Object.fromEntries([...this.cookies].map(([name, { value }]) => [name, value])),
      res,
    } as unknown as Request;
  }
}

function store(jar: Jar, store: CookieStateStore, from: string): string {
  let state = '';
  store.store(jar.exchange(), 'the-verifier', { from }, {}, (error, value) => {
    expect(error).toBeNull();
    state = value ?? '';
  });
  return state;
}

function verify(jar: Jar, states: CookieStateStore, given: unknown) {
  let outcome: unknown[] = [];
  states.verify(jar.exchange(), given, {}, (...args) => (outcome = args));
  return outcome;
}

describe('CookieStateStore', () => {
  const states = new CookieStateStore(true);

  it('keeps a random state in a short-lived HttpOnly cookie for the callback only', () => {
    const jar = new Jar();
    const state = store(jar, states, '/profile');
    expect(state).toMatch(/^[\w-]{32}$/);
    expect(store(new Jar(), states, '/profile')).not.toBe(state);
    expect(jar.cookies.get(SIGN_IN_STATE_COOKIE)?.options).toMatchObject({
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
      path: '/auth',
      maxAge: 600_000,
    });
  });

  it('verifies the matching state once, giving back the verifier and where to return', () => {
    const jar = new Jar();
    const state = store(jar, states, '/profile/abc1234');
    expect(verify(jar, states, state)).toEqual([
      null,
      'the-verifier',
      { from: '/profile/abc1234' },
    ]);
    expect(jar.cookies.has(SIGN_IN_STATE_COOKIE)).toBe(false);
    expect(verify(jar, states, state)).toEqual([null, false, { message: 'state mismatch' }]);
  });

  it.each([
    // Its last character changed (a random state may already end in x).
    [
      'a tampered state',
      (state: string) => `${state.slice(0, -1)}${state.endsWith('x') ? 'y' : 'x'}`,
    ],
    ['no state', () => undefined],
    ['two states', (state: string) => [state, state]],
  ])('refuses %s and forgets the sign-in', (_what, change) => {
    const jar = new Jar();
    const state = store(jar, states, '/profile');
    expect(verify(jar, states, change(state))[1]).toBe(false);
    expect(jar.cookies.has(SIGN_IN_STATE_COOKIE)).toBe(false);
  });

  it('refuses a callback in a browser that did not start the sign-in', () => {
    const state = store(new Jar(), states, '/profile');
    expect(verify(new Jar(), states, state)[1]).toBe(false);
  });

  it('refuses a state older than ten minutes, whatever the cookie says', () => {
    const jar = new Jar();
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    const state = store(jar, states, '/profile');
    clock.mockReturnValue(now + 10 * 60_000 + 1);
    expect(verify(jar, states, state)[1]).toBe(false);
    clock.mockRestore();
  });

  it('never returns to another site, even from a forged cookie', () => {
    const jar = new Jar();
    const state = store(jar, states, '//evil.example');
    expect(verify(jar, states, state)[2]).toEqual({ from: '/' });
    const forged = Buffer.from(
      JSON.stringify({ state: 's', verifier: 'v', from: 'https://evil.example', at: Date.now() }),
    ).toString('base64url');
    jar.cookies.set(SIGN_IN_STATE_COOKIE, { value: forged, options: {} });
    expect(verify(jar, states, 's')[2]).toEqual({ from: '/' });
  });
});
