import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Who calls an internal API, as the gateway vouches: an HMAC over user, time, nonce and the exact
 * request, so a token cannot be forged, moved, replayed (nonces remembered) or kept past seconds.
 */
export interface CallerIdentity {
  /** The signed-in user's id, or null for an anonymous visitor. */
  userId: string | null;
}

/** The request a token is for; an absent body and an empty one are the same bytes. */
export interface SignedRequest {
  method: string;
  /** Path and query, as the callee sees them (req.originalUrl). */
  path: string;
  body?: string | Uint8Array | undefined;
}

export interface VerifiedToken {
  identity: CallerIdentity;
  nonce: string;
  /** When the token stops being accepted: its nonce need not be remembered longer. */
  expiresAt: number;
}

const VERSION = 'v2';
/** How long after it was made a token is accepted. */
const MAX_AGE_MS = 10_000;
/** How far ahead of this clock a caller's clock may run. */
const MAX_SKEW_MS = 5_000;
const NONCE_PATTERN = /^[\w-]{22}$/;

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

function bodyHash(body: SignedRequest['body']): string {
  return createHash('sha256')
    .update(body ?? '')
    .digest('base64url');
}

function payloadOf(user: string, issuedAt: number, nonce: string, request: SignedRequest): string {
  return [
    VERSION,
    user,
    issuedAt,
    nonce,
    request.method.toUpperCase(),
    request.path,
    bodyHash(request.body),
  ].join('\n');
}

/** The variables of the shared secret (env.secret, env.previousSecret). */
export interface InternalSecretConfig {
  /** Signs every internal call and cache entry; accepted. */
  INTERNAL_API_SECRET: string;
  /**
   * Also accepted, never used to sign: the other secret while INTERNAL_API_SECRET is rotated
   * (docs/operations/credentials.md), so that pods holding either one
   * understand each other during a rollout.
   */
  INTERNAL_API_SECRET_PREVIOUS?: string | undefined;
}

/** The secrets a token or a cache entry may be signed with: the current one first. */
export function acceptedSecrets(config: InternalSecretConfig): string[] {
  const previous = config.INTERNAL_API_SECRET_PREVIOUS;
  return previous === undefined || previous === config.INTERNAL_API_SECRET
    ? [config.INTERNAL_API_SECRET]
    : [config.INTERNAL_API_SECRET, previous];
}

/** The token value for the x-internal-token header of one request. */
export function signInternalToken(
  secret: string,
  identity: CallerIdentity,
  request: SignedRequest,
  now = Date.now(),
): string {
  const user = identity.userId ?? '';
  const nonce = randomBytes(16).toString('base64url');
  const signature = sign(secret, payloadOf(user, now, nonce, request));
  return [VERSION, Buffer.from(user).toString('base64url'), now, nonce, signature].join('.');
}

/**
 * Checks a token against the request it arrived with, signed with any of `secrets` (one, or
 * acceptedSecrets). Returns null when it is missing, forged, of the old format, stale, or for
 * another request or body. Whether its nonce was already used is the caller's to check
 * (UsedNonces).
 */
export function verifyInternalToken(
  secrets: string | readonly string[],
  token: string | undefined,
  request: SignedRequest,
  now = Date.now(),
): VerifiedToken | null {
  if (!token) return null;
  const parts = token.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) return null;
  const [, userPart = '', issuedText = '', nonce = '', signature = ''] = parts;
  const issuedAt = Number(issuedText);
  if (!Number.isSafeInteger(issuedAt) || !NONCE_PATTERN.test(nonce)) return null;
  if (now - issuedAt > MAX_AGE_MS || issuedAt - now > MAX_SKEW_MS) return null;
  const user = Buffer.from(userPart, 'base64url').toString();
  const payload = payloadOf(user, issuedAt, nonce, request);
  const given = Buffer.from(signature);
  const signedWithOne = [secrets].flat().some((secret) => {
    const expected = Buffer.from(sign(secret, payload));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!signedWithOne) return null;
  return {
    identity: { userId: user === '' ? null : user },
    nonce,
    expiresAt: issuedAt + MAX_AGE_MS,
  };
}

/**
 * The nonces this service instance has taken, each kept until its token expires: the
 * short lifetime bounds the set. When it is full of unexpired nonces it refuses new ones
 * rather than forget one (which would let that token be replayed).
 */
export class UsedNonces {
  /** Nonce to expiry, in insertion order (which is close to expiry order). */
  private readonly nonces = new Map<string, number>();

  constructor(private readonly maxEntries = 100_000) {}

  get size(): number {
    return this.nonces.size;
  }

  /** True the first time a nonce is presented; false for a replay or while full. */
  claim(nonce: string, expiresAt: number, now = Date.now()): boolean {
    this.forgetExpired(now, false);
    if (this.nonces.has(nonce)) return false;
    if (this.nonces.size >= this.maxEntries) {
      this.forgetExpired(now, true);
      if (this.nonces.size >= this.maxEntries) return false;
    }
    this.nonces.set(nonce, expiresAt);
    return true;
  }

  /** From the oldest on until an unexpired one, or through the whole set when `all`. */
  private forgetExpired(now: number, all: boolean): void {
    for (const [nonce, expiresAt] of this.nonces) {
      if (expiresAt <= now) this.nonces.delete(nonce);
      else if (!all) return;
    }
  }
}
