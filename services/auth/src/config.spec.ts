import { ConfigError } from '@shortener/chassis';
import { loadAuthConfig } from './config';

const base = { INTERNAL_API_SECRET: 'a-secret-of-enough-length' };

describe('loadAuthConfig', () => {
  it('starts without Google credentials, sign-in off', () => {
    const config = loadAuthConfig(base);
    expect(config.google).toBeNull();
    expect(config.SESSION_TTL_DAYS).toBe(30);
    expect(config.SESSION_IDLE_DAYS).toBe(7);
    expect(config.secureCookies).toBe(false);
  });

  it('derives the callback URL from the public origin, and Secure cookies from https', () => {
    const config = loadAuthConfig({
      ...base,
      PUBLIC_ORIGIN: 'https://short.example',
      GOOGLE_CLIENT_ID: 'id',
      GOOGLE_CLIENT_SECRET: 'secret',
    });
    expect(config.google).toMatchObject({
      clientId: 'id',
      callbackUrl: 'https://short.example/auth/google/callback',
      authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    });
    expect(config.secureCookies).toBe(true);
  });

  it('takes every Google endpoint from the environment', () => {
    const config = loadAuthConfig({
      ...base,
      GOOGLE_CLIENT_ID: 'id',
      GOOGLE_CLIENT_SECRET: 'secret',
      GOOGLE_CALLBACK_URL: 'http://localhost:5173/auth/google/callback',
      GOOGLE_AUTHORIZATION_URL: 'http://127.0.0.1:9000/authorize',
      GOOGLE_TOKEN_URL: 'http://127.0.0.1:9000/token',
      GOOGLE_USERINFO_URL: 'http://127.0.0.1:9000/userinfo',
    });
    expect(config.google).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      callbackUrl: 'http://localhost:5173/auth/google/callback',
      authorizationUrl: 'http://127.0.0.1:9000/authorize',
      tokenUrl: 'http://127.0.0.1:9000/token',
      userinfoUrl: 'http://127.0.0.1:9000/userinfo',
    });
  });

  it('refuses a client id without its secret', () => {
    expect(() => loadAuthConfig({ ...base, GOOGLE_CLIENT_ID: 'id' })).toThrow(ConfigError);
  });

  it('lists bad endpoints', () => {
    expect(() => loadAuthConfig({ ...base, GOOGLE_TOKEN_URL: 'ftp://x' })).toThrow(
      /GOOGLE_TOKEN_URL: must be a http or https URL/,
    );
  });

  it.each(['production', 'Production', 'PRODUCTION', 'prod', 'Prod', ' production '])(
    'refuses the local sign-in when NODE_ENV=%j',
    (nodeEnv) => {
      expect(() => loadAuthConfig({ ...base, LOCAL_SIGN_IN: 'true', NODE_ENV: nodeEnv })).toThrow(
        /LOCAL_SIGN_IN: the local sign-in is only for trying the product/,
      );
    },
  );

  it.each([undefined, 'development', 'test', 'preproduction', 'producer'])(
    'allows the local sign-in when NODE_ENV=%j',
    (nodeEnv) => {
      const config = loadAuthConfig({ ...base, LOCAL_SIGN_IN: 'true', NODE_ENV: nodeEnv });
      expect(config.localSignIn).toBe(true);
    },
  );

  it('takes the idle timeout from SESSION_IDLE_DAYS', () => {
    expect(loadAuthConfig({ ...base, SESSION_IDLE_DAYS: '2' }).SESSION_IDLE_DAYS).toBe(2);
    expect(() => loadAuthConfig({ ...base, SESSION_IDLE_DAYS: '0' })).toThrow(/SESSION_IDLE_DAYS/);
  });

  it('keeps revoked API keys 30 days by default, or API_KEY_REVOKED_RETENTION_DAYS (1 or more)', () => {
    expect(loadAuthConfig(base).API_KEY_REVOKED_RETENTION_DAYS).toBe(30);
    const config = loadAuthConfig({ ...base, API_KEY_REVOKED_RETENTION_DAYS: '7' });
    expect(config.API_KEY_REVOKED_RETENTION_DAYS).toBe(7);
    for (const bad of ['0', '-1', 'a month', '1.5']) {
      expect(() => loadAuthConfig({ ...base, API_KEY_REVOKED_RETENTION_DAYS: bad })).toThrow(
        /API_KEY_REVOKED_RETENTION_DAYS/,
      );
    }
  });
});
