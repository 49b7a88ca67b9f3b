import { env, loadConfig } from '@shortener/chassis';

export const linksConfigShape = {
  PORT: env.port(7002),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  DATABASE_URL: env.url(['postgres', 'postgresql'], 'postgres://postgres@127.0.0.1:5432/shortener'),
  DB_MIGRATE: env.bool(true),
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
};

export type LinksConfig = ReturnType<typeof loadLinksConfig>;
export const loadLinksConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig('links', linksConfigShape, source);
