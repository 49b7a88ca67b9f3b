import type { CookieOptions, Request, Response } from 'express';
import {
  LOGGED_IN_COOKIE,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  sessionCookieName,
} from '@shortener/contracts';

/**
 * A session's HttpOnly id and the page's `loggedIn=true`, SameSite=Lax to survive the provider's
 * redirect; over https Secure, the id as `__Host-sid` so no subdomain can set it.
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
  res.cookie(sessionCookieName(secure), session.id, { ...base(secure), httpOnly: true, maxAge });
  res.cookie(LOGGED_IN_COOKIE, 'true', { ...base(secure), httpOnly: false, maxAge });
}

export function clearSessionCookies(res: Response, secure: boolean, req: Request): void {
  res.clearCookie(sessionCookieName(secure), { ...base(secure), httpOnly: true });
  res.clearCookie(LOGGED_IN_COOKIE, { ...base(secure), httpOnly: false });
  // A `sid` from before the origin moved to https would otherwise stay in the browser.
  if (secure && presentedCookies(req)[SESSION_COOKIE] !== undefined) {
    res.clearCookie(SESSION_COOKIE, { ...base(secure), httpOnly: true });
  }
}

/**
 * The session ids this browser presents, under either name: signing in or out ends them
 * all, so a session from before the origin moved to https does not outlive it.
 */
export function presentedSessionIds(req: Request): unknown[] {
  const cookies = presentedCookies(req);
  return [cookies[SECURE_SESSION_COOKIE], cookies[SESSION_COOKIE]].filter((id) => id !== undefined);
}

function presentedCookies(req: Request): Record<string, unknown> {
  return (req.cookies as Record<string, unknown> | undefined) ?? {};
}
