import { env, loadConfig } from '@shortener/chassis';

export const analyticsConfigShape = {
  PORT: env.port(7003),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  /** Shared with the gateway: signs and checks internal calls. */
  INTERNAL_API_SECRET: env.secret(),
  DATABASE_URL: env.url(['postgres', 'postgresql'], 'postgres://postgres@127.0.0.1:5432/shortener'),
  DB_MIGRATE: env.bool(true),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  KAFKA_CONSUMER_GROUP: env.string('analytics'),
};

export type AnalyticsConfig = ReturnType<typeof loadAnalyticsConfig>;
export const loadAnalyticsConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig('analytics', analyticsConfigShape, source);
