import { ConfigError } from '@shortener/chassis';
import { loadAuthConfig } from './config';

const base = { INTERNAL_API_SECRET: 'a-secret-of-enough-length' };

describe('loadAuthConfig', () => {
  it('starts without Google credentials, sign-in off', () => {
    const config = loadAuthConfig(base);
    expect(config.google).toBeNull();
    expect(config.SESSION_TTL_DAYS).toBe(30);
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
});
