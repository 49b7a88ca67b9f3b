import { timingSafeEqual, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { safeReturnPath } from '@shortener/contracts';

export const SIGN_IN_STATE_COOKIE = 'oauth_state';
/** Only the callback needs the cookie. */
const STATE_COOKIE_PATH = '/auth';
const STATE_TTL_MS = 10 * 60_000;

/** What `/login` hands to the callback, through the provider, beside the OAuth state. */
export interface SignInState {
  /** The same-site path to return to after sign-in. */
  from: string;
}

interface StoredState {
  state: string;
  verifier: string;
  from: string;
  /** When the sign-in started, milliseconds since the epoch. */
  at: number;
}

function encode(stored: StoredState): string {
  return Buffer.from(JSON.stringify(stored)).toString('base64url');
}

function decode(raw: unknown): StoredState | null {
  if (typeof raw !== 'string' || raw.length > 4096) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null) return null;
    const { state, verifier, from, at } = value as Record<string, unknown>;
    if (
      typeof state !== 'string' ||
      typeof verifier !== 'string' ||
      typeof from !== 'string' ||
      typeof at !== 'number'
    ) {
      return null;
    }
    return { state, verifier, from, at };
  } catch {
    return null;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

type StoreCallback = (error: Error | null, state?: string) => void;
type VerifyCallback = (
  error: Error | null,
  verifier: string | false,
  info: SignInState | { message: string },
) => void;

/**
 * The OAuth `state` (and the PKCE verifier) bound to the browser that started the sign-in:
 * a random value sent to the provider and kept in a short-lived HttpOnly cookie, checked
 * once on the callback. A callback whose state does not match the cookie (forged, replayed,
 * started in another browser, or older than ten minutes) signs no one in.
 *
 * The method arities are what passport-oauth2 looks at: store(req, verifier, state, meta,
 * cb) is its PKCE form, verify(req, state, meta, cb) its form with metadata.
 */
export class CookieStateStore {
  constructor(private readonly secure: boolean) {}

  store(
    req: Request,
    verifier: string,
    state: SignInState | undefined,
    _meta: unknown,
    callback: StoreCallback,
  ): void {
    const value = randomBytes(24).toString('base64url');
    const from = safeReturnPath(state?.from);
    this.response(req).cookie(
      SIGN_IN_STATE_COOKIE,
      encode({ state: value, verifier, from, at: Date.now() }),
      {
        httpOnly: true,
        sameSite: 'lax',
        secure: this.secure,
        path: STATE_COOKIE_PATH,
        maxAge: STATE_TTL_MS,
      },
    );
    callback(null, value);
  }

  verify(req: Request, providedState: unknown, _meta: unknown, callback: VerifyCallback): void {
    const stored = this.take(req, providedState);
    if (!stored) {
      callback(null, false, { message: 'state mismatch' });
      return;
    }
    callback(null, stored.verifier, { from: stored.from });
  }

  /**
   * The stored state when `providedState` matches it, or null. Either way the cookie is
   * cleared: a state is good for one callback only.
   */
  take(req: Request, providedState: unknown): StoredState | null {
    const cookies = req.cookies as Record<string, unknown> | undefined;
    const stored = decode(cookies?.[SIGN_IN_STATE_COOKIE]);
    this.response(req).clearCookie(SIGN_IN_STATE_COOKIE, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure,
      path: STATE_COOKIE_PATH,
    });
    if (!stored || typeof providedState !== 'string' || !sameText(stored.state, providedState)) {
      return null;
    }
    // The cookie's Max-Age is the browser's promise; this is ours.
    if (Date.now() - stored.at > STATE_TTL_MS) return null;
    return { ...stored, from: safeReturnPath(stored.from) };
  }

  private response(req: Request): Response {
    if (!req.res) throw new Error('no response to set the sign-in state cookie on');
    return req.res;
  }
}
