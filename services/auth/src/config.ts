import { z } from 'zod';
import {
  ConfigError,
  env,
  loadConfig,
  localSignInRefusal,
  serviceConfigShape,
} from '@shortener/chassis';
import { databaseConfigShape } from '@shortener/chassis-postgres';
import { signInApi } from '@shortener/contracts';

export const authConfigShape = {
  ...serviceConfigShape(7001),
  ...databaseConfigShape,
  /** The product's public origin: cookies are Secure when it is https. */
  PUBLIC_ORIGIN: env.url(['http', 'https'], 'http://localhost:8080'),
  /** Without a client id the service starts, and /login says sign-in is not configured. */
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  /** Default: {PUBLIC_ORIGIN}/auth/google/callback. */
  GOOGLE_CALLBACK_URL: env.url(['http', 'https']).optional(),
  /** Google's endpoints; point them at any OAuth2 provider (or a local mock) to test. */
  GOOGLE_AUTHORIZATION_URL: env.url(
    ['http', 'https'],
    'https://accounts.google.com/o/oauth2/v2/auth',
  ),
  GOOGLE_TOKEN_URL: env.url(['http', 'https'], 'https://oauth2.googleapis.com/token'),
  GOOGLE_USERINFO_URL: env.url(
    ['http', 'https'],
    'https://openidconnect.googleapis.com/v1/userinfo',
  ),
  /**
   * Without Google credentials, offer a clearly labelled local sign-in (a name of your
   * choice) for trying the product. Refused when NODE_ENV is production or prod, in any case.
   */
  LOCAL_SIGN_IN: env.bool(false),
  NODE_ENV: z.string().optional(),
  /** A session ends this long after sign-in, however much it is used. */
  SESSION_TTL_DAYS: env.int(30, 1, 3650),
  /** A session not used for this long ends too; each use slides it (written once a minute). */
  SESSION_IDLE_DAYS: env.int(7, 1, 3650),
  /** How often expired and idle sessions are deleted. */
  SESSION_PURGE_INTERVAL_MS: env.int(3_600_000, 1000),
  /** A revoked API key's row (who owned it, when it stopped working) is kept this long. */
  API_KEY_REVOKED_RETENTION_DAYS: env.int(30, 1, 3650),
  /** How often revoked keys past their retention are deleted. */
  API_KEY_PURGE_INTERVAL_MS: env.int(3_600_000, 1000),
};

type RawAuthConfig = z.infer<z.ZodObject<typeof authConfigShape>>;

export interface GoogleSignIn {
  clientId: string;
  clientSecret: string;
  callbackUrl: string;
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
}

export type AuthConfig = RawAuthConfig & {
  /** Null when Google sign-in is not configured. */
  google: GoogleSignIn | null;
  /** The local sign-in is on: asked for, and Google is not configured. */
  localSignIn: boolean;
  /** Cookies carry Secure when the public origin is https. */
  secureCookies: boolean;
};

/** The variables that enable Google sign-in, as the "not configured" page names them. */
export const GOOGLE_VARIABLES = [
  'GOOGLE_CLIENT_ID',
  'GOOGLE_CLIENT_SECRET',
  'GOOGLE_CALLBACK_URL',
  'GOOGLE_AUTHORIZATION_URL',
  'GOOGLE_TOKEN_URL',
  'GOOGLE_USERINFO_URL',
] as const;

export function loadAuthConfig(source: NodeJS.ProcessEnv = process.env): AuthConfig {
  const raw = loadConfig('auth', authConfigShape, source);
  // A secret without its id (or the reverse) is a half-done set-up: say so at start-up
  // instead of failing at the first sign-in.
  if ((raw.GOOGLE_CLIENT_ID === undefined) !== (raw.GOOGLE_CLIENT_SECRET === undefined)) {
    throw new ConfigError('auth', [
      'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET: set both to enable Google sign-in, or neither',
    ]);
  }
  const refusal = localSignInRefusal(raw.NODE_ENV);
  if (raw.LOCAL_SIGN_IN && refusal !== undefined) {
    throw new ConfigError('auth', [`LOCAL_SIGN_IN: ${refusal} (NODE_ENV=${raw.NODE_ENV})`]);
  }
  const google =
    raw.GOOGLE_CLIENT_ID !== undefined && raw.GOOGLE_CLIENT_SECRET !== undefined
      ? {
          clientId: raw.GOOGLE_CLIENT_ID,
          clientSecret: raw.GOOGLE_CLIENT_SECRET,
          callbackUrl:
            raw.GOOGLE_CALLBACK_URL ??
            new URL(signInApi.googleCallback.path, raw.PUBLIC_ORIGIN).toString(),
          authorizationUrl: raw.GOOGLE_AUTHORIZATION_URL,
          tokenUrl: raw.GOOGLE_TOKEN_URL,
          userinfoUrl: raw.GOOGLE_USERINFO_URL,
        }
      : null;
  return {
    ...raw,
    google,
    localSignIn: raw.LOCAL_SIGN_IN && google === null,
    secureCookies: new URL(raw.PUBLIC_ORIGIN).protocol === 'https:',
  };
}
