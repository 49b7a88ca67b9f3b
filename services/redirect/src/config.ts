import { env, loadConfig } from '@shortener/chassis';

export const redirectConfigShape = {
  PORT: env.port(7004),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
};

export type RedirectConfig = ReturnType<typeof loadRedirectConfig>;
export const loadRedirectConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig('redirect', redirectConfigShape, source);
