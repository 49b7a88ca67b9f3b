import { isIP } from 'node:net';
import { env, loadConfig, serviceConfigShape } from '@shortener/chassis';
import { databaseConfigShape } from '@shortener/chassis-postgres';
import { DELETE_UNDO_WINDOW_DEFAULT_MS, DELETE_UNDO_WINDOW_MIN_MS } from '@shortener/contracts';

/** A DNS server as Resolver.setServers takes one: an address, or address:port ([v6]:port). */
function isDnsServer(entry: string): boolean {
  if (isIP(entry) !== 0) return true;
  const [, v6, v4, port] = /^(?:\[(.+)\]|([^:]+)):(\d{1,5})$/.exec(entry) ?? [];
  const known = v6 !== undefined ? isIP(v6) === 6 : v4 !== undefined && isIP(v4) === 4;
  return known && Number(port) >= 1 && Number(port) <= 65535;
}

export const linksConfigShape = {
  ...serviceConfigShape(7002),
  ...databaseConfigShape,
  /** The link cache redirects read (the embedded mode keeps it in its process instead). */
  REDIS_URL: env.redisUrl(),
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
  /** How often analytics is told the owners of new links (the account analytics). */
  OWNER_NOTICES_INTERVAL_MS: env.int(1000, 100),
  /**
   * How long a deleted link can be restored (POST /api/links/{urlID}/restore) before it and its
   * visits are purged; never less than the web app's Undo offer and a second for the trip.
   */
  DELETE_UNDO_WINDOW_MS: env.int(DELETE_UNDO_WINDOW_DEFAULT_MS, DELETE_UNDO_WINDOW_MIN_MS),
  /**
   * The DNS servers a domain's verification asks (comma-separated address[:port]); the
   * system's when empty.
   */
  DNS_SERVERS: env.list('').refine((servers) => servers.every(isDnsServer), {
    message: 'must be comma-separated IP addresses, each with an optional :port',
  }),
};

export type LinksConfig = ReturnType<typeof loadLinksConfig>;
export const loadLinksConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig('links', linksConfigShape, source);

/** Every host:port our short links are served on. */
export function ownHosts(config: LinksConfig): string[] {
  return [new URL(config.PUBLIC_ORIGIN).host, ...config.SHORT_LINK_HOSTS];
}
