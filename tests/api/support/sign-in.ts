import { locationOf, type Browser } from './browser';

export interface SignInTrip {
  /** Where /login sent the browser: the provider's authorization URL. */
  authorizeUrl: string;
  /** The provider's redirect back to us, with code and state. */
  callbackUrl: string;
  /** The answer to the callback. */
  callback: Response;
  /** Where the callback sent the browser. */
  landedAt: string | null;
}

/**
 * Walks a browser through /login?from=... -> the provider (signing in as `user`) -> our
 * callback, hop by hop, the way a browser follows the redirects.
 */
export async function signIn(
  browser: Browser,
  origin: string,
  user: string,
  from: string | null = '/profile',
): Promise<SignInTrip> {
  const loginUrl =
    from === null ? `${origin}/login` : `${origin}/login?from=${encodeURIComponent(from)}`;
  const login = await browser.fetch(loginUrl);
  if (login.status !== 302) {
    throw new Error(`/login answered ${login.status}: ${await login.text()}`);
  }
  const authorizeUrl = locationOf(login, loginUrl);
  const pick = new URL(authorizeUrl);
  pick.searchParams.set('login_hint', user);
  const authorize = await browser.fetch(pick.toString());
  const callbackUrl = locationOf(authorize, pick.toString());
  const callback = await browser.fetch(callbackUrl);
  const location = callback.headers.get('location');
  return {
    authorizeUrl,
    callbackUrl,
    callback,
    landedAt: location === null ? null : new URL(location, callbackUrl).toString(),
  };
}
