import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Who is calling an internal API, as the gateway vouches for it. The services are not
 * reachable from the edge, and they also check that the caller holds the shared secret:
 * a token is an HMAC over the user, the request and the time, so it cannot be forged or
 * replayed against another request, and it expires quickly.
 */
export interface CallerIdentity {
  /** The signed-in user's id, or null for an anonymous visitor. */
  userId: string | null;
}

const MAX_AGE_MS = 60_000;

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

function payloadOf(userId: string, issuedAt: number, method: string, path: string): string {
  return `${userId}\n${issuedAt}\n${method.toUpperCase()}\n${path}`;
}

/** The token value for the x-internal-token header of one request. */
export function signInternalToken(
  secret: string,
  identity: CallerIdentity,
  method: string,
  path: string,
  now = Date.now(),
): string {
  const user = identity.userId ?? '';
  const userPart = Buffer.from(user).toString('base64url');
  return `v1.${userPart}.${now}.${sign(secret, payloadOf(user, now, method, path))}`;
}

/** Returns the identity, or null when the token is missing, forged, stale or for another request. */
export function verifyInternalToken(
  secret: string,
  token: string | undefined,
  method: string,
  path: string,
  now = Date.now(),
): CallerIdentity | null {
  if (!token) return null;
  const parts = token.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1') return null;
  const [, userPart = '', issuedText = '', signature = ''] = parts;
  const issuedAt = Number(issuedText);
  if (!Number.isSafeInteger(issuedAt) || Math.abs(now - issuedAt) > MAX_AGE_MS) return null;
  const user = Buffer.from(userPart, 'base64url').toString();
  const expected = Buffer.from(sign(secret, payloadOf(user, issuedAt, method, path)));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return { userId: user === '' ? null : user };
}
