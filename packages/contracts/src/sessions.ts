import { z } from 'zod';
import { signInApi } from './page-routes';

/**
 * Sign-in and sessions, as the auth service and the gateway share them. The session cookie
 * holds an opaque random id (HttpOnly); the auth service keeps the session server-side and
 * the gateway resolves the cookie through the auth service's internal API.
 */
export const SESSION_COOKIE = 'sid';
/**
 * The session cookie's name when the public origin is https: browsers accept a `__Host-`
 * cookie only with Secure, Path=/ and no Domain, so no subdomain or plain-http page can
 * set or shadow it.
 */
export const SECURE_SESSION_COOKIE = '__Host-sid';

/** The session cookie's name: `__Host-sid` behind https, `sid` over plain http. */
export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}
/** 32 random bytes, base64url: anything else is forged and never reaches the database. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const SIGN_IN_PATH = signInApi.signIn.path;
export const SIGN_OUT_PATH = signInApi.signOut.path;
/** Where the 401 callBack sends the browser back when the page it was on is unknown. */
export const DEFAULT_CALLBACK_FROM = '/profile';

// The auth service's session lookup (internalApi.lookUpSession) takes the id in a body, not a
// URL or header, so it never lands in access logs.
export const sessionLookupSchema = z.object({ sessionId: z.string().max(128) });
export type SessionLookup = z.infer<typeof sessionLookupSchema>;

export const sessionUserSchema = z.object({
  /** The user's id, the identity every internal call carries. */
  id: z.string(),
  fullName: z.string(),
  profilePicture: z.string(),
});
export type SessionUser = z.infer<typeof sessionUserSchema>;

export const currentSessionSchema = z.object({
  user: sessionUserSchema,
  /** Milliseconds since the epoch. */
  expiresAt: z.number(),
});
export type CurrentSession = z.infer<typeof currentSessionSchema>;

const SAFE_BASE = 'http://same-site.invalid';
const MAX_RETURN_PATH_LENGTH = 2048;

/**
 * The web app's own pages (frontend/src/app/router.tsx): a sign-in returns only to one of
 * these. Anything else on this origin is not a page to land on: /r/ would carry the browser
 * off-site through one of our short links, /api, /login and the rest are server routes.
 */
const WEB_APP_PAGE = /^\/(?:(?:profile(?:\/[^/]+)?|tc|privacy_policy)\/?)?$/;

/**
 * A page of the web app to return to after sign-in, or '/' when `raw` could send the browser
 * anywhere else: it must start with exactly one '/' (not '//' or '/\', which browsers read
 * as another host), hold no backslash or control character, still resolve to this site, and
 * name one of the web app's pages once normalised. The result is the normalised,
 * percent-encoded form, safe for a Location header.
 */
export function safeReturnPath(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_RETURN_PATH_LENGTH) {
    return '/';
  }
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return '/';
  if (/\p{Cc}/u.test(raw)) return '/';
  let parsed: URL;
  try {
    parsed = new URL(raw, SAFE_BASE);
  } catch {
    return '/';
  }
  if (parsed.origin !== SAFE_BASE || !WEB_APP_PAGE.test(parsed.pathname)) return '/';
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/** The sign-in link that brings the browser back to `from` afterwards. */
export function signInLink(from: string): string {
  return `${SIGN_IN_PATH}?from=${encodeURIComponent(safeReturnPath(from))}`;
}
