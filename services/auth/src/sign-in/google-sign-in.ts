import type { Request } from 'express';
import { Strategy as GoogleStrategy, type Profile } from 'passport-google-oauth20';
import type { StateStore } from 'passport-oauth2';
import type { GoogleSignIn as GoogleSettings } from '../config';
import { identityFromUserinfo, type GoogleIdentity } from '../users/google-identity';
import { CookieStateStore, type SignInState } from './sign-in-state.store';

/** Where one step of the OAuth flow ends. */
type SignInOutcome =
  /** Send the browser to the provider. */
  | { kind: 'redirect'; url: string }
  /** The provider vouched for this identity. */
  | { kind: 'signed-in'; identity: GoogleIdentity; from: string }
  /** The callback does not belong to a sign-in this browser started, or names no one. */
  | { kind: 'refused'; reason: string }
  /** The provider could not be reached or did not accept the code. */
  | { kind: 'failed'; error: Error };

type StrategyActions = Pick<GoogleStrategy, 'authenticate'> & {
  redirect(url: string): void;
  success(user: unknown, info?: unknown): void;
  fail(challenge?: unknown, status?: number): void;
  error(error: Error): void;
  pass(): void;
};

function reasonOf(challenge: unknown): string {
  if (typeof challenge === 'string') return challenge;
  if (typeof challenge === 'object' && challenge !== null && 'message' in challenge) {
    return String(challenge.message);
  }
  return 'refused';
}

/**
 * Google sign-in with passport-google-oauth20: the authorization-code flow with a checked
 * `state` and PKCE, against endpoints that configuration can point at any OAuth2 provider.
 * The strategy's outcome comes back as a value, so the controller decides what the browser
 * sees (cookies, pages) instead of passport writing to the response.
 */
export class GoogleSignIn {
  readonly states: CookieStateStore;
  private readonly strategy: GoogleStrategy;

  constructor(settings: GoogleSettings, secureCookies: boolean) {
    this.states = new CookieStateStore(secureCookies);
    this.strategy = new GoogleStrategy(
      {
        clientID: settings.clientId,
        clientSecret: settings.clientSecret,
        callbackURL: settings.callbackUrl,
        authorizationURL: settings.authorizationUrl,
        tokenURL: settings.tokenUrl,
        userProfileURL: settings.userinfoUrl,
        scope: ['openid', 'profile', 'email'],
        pkce: true,
        // The typings know only the store forms without PKCE; passport-oauth2 picks the
        // PKCE one by the method's arity.
        store: this.states as unknown as StateStore,
      },
      (_accessToken: string, _refreshToken: string, profile: Profile, done) => {
        const identity = identityFromUserinfo(profile._json);
        if (identity) done(null, identity);
        else done(null, false, { message: 'the provider named no user' });
      },
    );
  }

  /** Starts a sign-in that returns to `from`. */
  start(req: Request, from: string): Promise<SignInOutcome> {
    const state: SignInState = { from };
    return this.run(req, { state, session: false });
  }

  /** Finishes a sign-in on the provider's callback. */
  finish(req: Request): Promise<SignInOutcome> {
    return this.run(req, { session: false });
  }

  private run(req: Request, options: object): Promise<SignInOutcome> {
    return new Promise((resolve) => {
      // One short-lived copy of the strategy per request, as passport.authenticate makes.
      const attempt = Object.create(this.strategy) as StrategyActions;
      attempt.redirect = (url) => resolve({ kind: 'redirect', url });
      attempt.success = (user, info) => {
        const from = (info as { state?: SignInState } | undefined)?.state?.from ?? '/';
        resolve({ kind: 'signed-in', identity: user as GoogleIdentity, from });
      };
      attempt.fail = (challenge) => resolve({ kind: 'refused', reason: reasonOf(challenge) });
      attempt.error = (error) => resolve({ kind: 'failed', error });
      attempt.pass = () => resolve({ kind: 'refused', reason: 'nothing to do' });
      try {
        attempt.authenticate(req, options);
      } catch (error) {
        resolve({
          kind: 'failed',
          error: error instanceof Error ? error : new Error(String(error)),
        });
      }
    });
  }
}
