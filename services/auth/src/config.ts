import { env, loadConfig } from '@shortener/chassis';

export const authConfigShape = {
  PORT: env.port(7001),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  /** Shared with the gateway: signs and checks internal calls. */
  INTERNAL_API_SECRET: env.secret(),
  DATABASE_URL: env.url(['postgres', 'postgresql'], 'postgres://postgres@127.0.0.1:5432/shortener'),
  DB_MIGRATE: env.bool(true),
};

export type AuthConfig = ReturnType<typeof loadAuthConfig>;
export const loadAuthConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig('auth', authConfigShape, source);
