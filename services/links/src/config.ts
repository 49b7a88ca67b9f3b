import { env, loadConfig } from '@shortener/chassis';

export const linksConfigShape = {
  PORT: env.port(7002),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  /** Set: /readyz and /metrics only on this port (on OPS_HOST, else HOST), none on PORT. */
  OPS_PORT: env.opsPort(),
  OPS_HOST: env.opsHost(),
  /** Shared with the gateway: signs and checks internal calls. */
  INTERNAL_API_SECRET: env.secret(),
  DATABASE_URL: env.url(['postgres', 'postgresql'], 'postgres://postgres@127.0.0.1:5432/shortener'),
  DB_MIGRATE: env.bool(true),
  /** The link cache redirects read (the embedded mode keeps it in its process instead). */
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
  ANALYTICS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7003'),
  /** The product's public origin; links to it cannot be shortened (no loops). */
  PUBLIC_ORIGIN: env.url(['http', 'https'], 'http://localhost:8080'),
  /** Other hosts that serve our short links (comma-separated host[:port]). */
  SHORT_LINK_HOSTS: env.list(''),
  /** Days an expired link and its visits are kept before they are purged. */
  LINK_RETENTION_DAYS: env.int(30, 0, 3650),
  PURGE_INTERVAL_MS: env.int(600_000, 1000),
  /** How often removed links are retried with analytics (their visits) and Redis. */
  REMOVALS_INTERVAL_MS: env.int(10_000, 100),
};

export type LinksConfig = ReturnType<typeof loadLinksConfig>;
export const loadLinksConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig('links', linksConfigShape, source);

/** Every host:port our short links are served on. */
export function ownHosts(config: LinksConfig): string[] {
  return [new URL(config.PUBLIC_ORIGIN).host, ...config.SHORT_LINK_HOSTS];
}
