import path from 'node:path';
import { env, loadConfig, serverConfigShape } from '@shortener/chassis';

export const gatewayConfigShape = {
  /** PORT is the public port: the product's origin is http://localhost:PORT. */
  ...serverConfigShape(8080),
  /** Signs the internal calls to the services, which check it. */
  INTERNAL_API_SECRET: env.secret(),
  /** Rate-limit counters, shared by every replica (the embedded mode counts in its process). */
  REDIS_URL: env.redisUrl(),
  AUTH_URL: env.url(['http', 'https'], 'http://127.0.0.1:7001'),
  LINKS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7002'),
  ANALYTICS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7003'),
  REDIRECT_URL: env.url(['http', 'https'], 'http://127.0.0.1:7004'),
  /**
   * Set: /r/ goes to the redirect service on this Unix socket (its UNIX_SOCKET), where it
   * believes the client address the gateway names, and no one else can name one
   * (`npm run stack`, the embedded mode); REDIRECT_URL still answers its health checks.
   */
  REDIRECT_SOCKET: env.socketPath(),
  /**
   * Set: the gateway also answers on this Unix socket, for an edge on the same machine
   * (`npm run stack`'s nginx). Whoever connects there is taken for that edge, its
   * X-Forwarded-For believed: the socket is this user's alone (0600), so the edge runs as the
   * same user; on PORT only TRUSTED_PROXIES are believed.
   */
  UNIX_SOCKET: env.socketPath(),
  /** The origin browsers use: same-origin Referers, Secure cookies, the API description. */
  PUBLIC_ORIGIN: env.url(['http', 'https'], 'http://localhost:8080'),
  /**
   * Other hosts that serve our short links (comma-separated host[:port]), as the links
   * service reads it: with PUBLIC_ORIGIN's, the hosts the gateway answers as its own. Any
   * other host name is a branded domain's, whose requests go to the redirect service.
   */
  SHORT_LINK_HOSTS: env.list(''),
  /** The built frontend (vite build), served on the same origin. */
  FRONTEND_DIR: env.string(path.resolve(__dirname, '../../../frontend/dist')),
  /**
   * Proxies whose X-Forwarded-For is believed (Express "trust proxy" values). Empty by default:
   * loopback here would let any local program name any address and escape per-address limits.
   */
  TRUSTED_PROXIES: env.list(''),
  /** How long a resolved session cookie is remembered before asking the auth service again. */
  SESSION_CACHE_MS: env.int(5000, 0, 60_000),
  /**
   * How long a resolved API key is remembered before asking the auth service again (and so
   * how often its "last used" can move). A revocation reaches every instance at once anyway.
   */
  API_KEY_CACHE_MS: env.int(60_000, 0, 600_000),
  /** How often a live stream sends its heartbeat comment, and checks its session is alive. */
  LIVE_HEARTBEAT_MS: env.int(15_000, 100, 120_000),
  /**
   * Live streams one user may hold on one instance, and one instance in all: each holds a
   * connection and its buffers (up to a few MB in the kernel for a client that does not read).
   */
  LIVE_STREAMS_PER_USER: env.int(10, 1, 1000),
  LIVE_STREAMS_PER_INSTANCE: env.int(500, 1, 100_000),
  /** Rate limits: requests per window, per client address or (signed in) per user. */
  RATE_LIMIT_WINDOW_SECONDS: env.int(60, 1, 86_400),
  API_RATE_LIMIT: env.int(300, 1),
  SHORTEN_RATE_LIMIT_ANONYMOUS: env.int(10, 1),
  SHORTEN_RATE_LIMIT_SIGNED_IN: env.int(60, 1),
  SIGN_IN_RATE_LIMIT: env.int(30, 1),
  /** Calls per window per API key (429 past it); a key's shortening also counts per user. */
  API_KEY_RATE_LIMIT: env.int(120, 1),
  /**
   * Links a user's API keys shorten per window in all, bulk included: their own budget, never
   * the web page's (SHORTEN_RATE_LIMIT_SIGNED_IN), large enough for scripts and batches.
   */
  SHORTEN_RATE_LIMIT_API_KEY: env.int(1000, 1),
  /** Slow requests: see env.headersTimeoutMs. */
  HEADERS_TIMEOUT_MS: env.headersTimeoutMs(),
  REQUEST_TIMEOUT_MS: env.requestTimeoutMs(),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig('gateway', gatewayConfigShape, source);

/** Cookies carry Secure when browsers reach us over https. */
export function secureCookies(config: GatewayConfig): boolean {
  return new URL(config.PUBLIC_ORIGIN).protocol === 'https:';
}
