import type { CookieOptions, Response } from 'express';
import { LOGGED_IN_COOKIE, SESSION_COOKIE } from '@shortener/contracts';

/**
 * The two cookies of a session: the HttpOnly id the server resolves, and `loggedIn=true`,
 * which only tells the page (it reads it) that someone is signed in. Both SameSite=Lax so
 * that they come back from the provider's redirect, and Secure behind https.
 */
function base(secure: boolean): CookieOptions {
  return { sameSite: 'lax', secure, path: '/' };
}

export function setSessionCookies(
  res: Response,
  secure: boolean,
  session: { id: string; expiresAt: Date },
): void {
  const maxAge = Math.max(0, session.expiresAt.getTime() - Date.now());
  res.cookie(SESSION_COOKIE, session.id, { ...base(secure), httpOnly: true, maxAge });
  res.cookie(LOGGED_IN_COOKIE, 'true', { ...base(secure), httpOnly: false, maxAge });
}

export function clearSessionCookies(res: Response, secure: boolean): void {
  res.clearCookie(SESSION_COOKIE, { ...base(secure), httpOnly: true });
  res.clearCookie(LOGGED_IN_COOKIE, { ...base(secure), httpOnly: false });
}
