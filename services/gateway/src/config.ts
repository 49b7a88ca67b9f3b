import path from 'node:path';
import { env, loadConfig } from '@shortener/chassis';

export const gatewayConfigShape = {
  /** The public port: the product's origin is http://localhost:PORT. */
  PORT: env.port(8080),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  /** Set: /readyz and /metrics only on this port (on OPS_HOST, else HOST), none on PORT. */
  OPS_PORT: env.opsPort(),
  OPS_HOST: env.opsHost(),
  /** Signs the internal calls to the services, which check it. */
  INTERNAL_API_SECRET: env.secret(),
  /** Rate-limit counters, shared by every replica (the embedded mode counts in its process). */
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
  AUTH_URL: env.url(['http', 'https'], 'http://127.0.0.1:7001'),
  LINKS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7002'),
  ANALYTICS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7003'),
  REDIRECT_URL: env.url(['http', 'https'], 'http://127.0.0.1:7004'),
  /** The origin browsers use: same-origin Referers, Secure cookies, the API description. */
  PUBLIC_ORIGIN: env.url(['http', 'https'], 'http://localhost:8080'),
  /** The built frontend (vite build), served on the same origin. */
  FRONTEND_DIR: env.string(path.resolve(__dirname, '../../../frontend/dist')),
  /**
   * Proxies in front of the gateway whose X-Forwarded-For is believed (Express "trust
   * proxy" values: addresses, CIDRs, or loopback / linklocal / uniquelocal). Empty: none,
   * the client is the socket's peer.
   */
  TRUSTED_PROXIES: env.list(''),
  /** How long a resolved session cookie is remembered before asking the auth service again. */
  SESSION_CACHE_MS: env.int(5000, 0, 60_000),
  /** Rate limits: requests per window, per client address or (signed in) per user. */
  RATE_LIMIT_WINDOW_SECONDS: env.int(60, 1, 86_400),
  API_RATE_LIMIT: env.int(300, 1),
  SHORTEN_RATE_LIMIT_ANONYMOUS: env.int(10, 1),
  SHORTEN_RATE_LIMIT_SIGNED_IN: env.int(60, 1),
  SIGN_IN_RATE_LIMIT: env.int(30, 1),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig('gateway', gatewayConfigShape, source);

/** Cookies carry Secure when browsers reach us over https. */
export function secureCookies(config: GatewayConfig): boolean {
  return new URL(config.PUBLIC_ORIGIN).protocol === 'https:';
}
