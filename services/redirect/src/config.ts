import { z } from 'zod';
import {
  ConfigError,
  env,
  loadConfig,
  serviceConfigShape,
  SHUTDOWN_TIMEOUT_MS,
} from '@shortener/chassis';
import { checkKafkaSecurity, kafkaConfigShape } from '@shortener/chassis-kafka';

export const redirectConfigShape = {
  ...serviceConfigShape(7004),
  /**
   * Set: /r/ is answered on this Unix socket too, for an edge on the same machine (cheaper than
   * loopback TCP). Its X-Forwarded-For is believed, so the socket is this user's alone (0600).
   */
  UNIX_SOCKET: env.socketPath(),
  /** The link cache (the embedded mode passes its in-process one instead). */
  REDIS_URL: env.redisUrl(),
  /** Where visits are published (the embedded mode hands them over in its process instead). */
  ...kafkaConfigShape,
  LINKS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7002'),
  /**
   * This service's own hosts, as the links service reads them: PUBLIC_ORIGIN's and
   * SHORT_LINK_HOSTS (host[:port]). A request on any other host is a branded domain's:
   * `/{slug}` is looked up on that host.
   */
  PUBLIC_ORIGIN: env.url(['http', 'https'], 'http://localhost:8080'),
  SHORT_LINK_HOSTS: env.list(''),
  /** Another MaxMind-format country database for geo rules (as analytics reads it). */
  GEOIP_DATABASE: z.string().min(1).optional(),
  /** Wrong passwords a client may try per link, within LINK_PASSWORD_WINDOW_MS of its first. */
  LINK_PASSWORD_TRIES: env.int(10, 1, 1000),
  LINK_PASSWORD_WINDOW_MS: env.int(15 * 60_000, 1000, 24 * 3_600_000),
  /** Where a stopping instance hands the visits Kafka did not take (its internal ingest). */
  ANALYTICS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7003'),
  /**
   * Proxies whose X-Forwarded-For is believed on PORT, as the gateway reads them
   * (compileTrustedProxies). Empty where the edge comes by UNIX_SOCKET (`npm run stack`, the
   * embedded mode): on the port nobody may then name a visitor's address.
   */
  TRUSTED_PROXIES: env.list(''),
  /** How long this instance answers a code from memory (deletes also arrive by broadcast). */
  LOCAL_CACHE_TTL_MS: env.int(1000, 0, 60_000),
  /** How long an unknown code is remembered as unknown. */
  NEGATIVE_CACHE_TTL_MS: env.int(1000, 0, 60_000),
  /**
   * After the link cache comes back from an outage, links are looked up in the links service
   * for this long instead: Redis may still hold a link deleted while it was away, until the
   * links service's removal outbox (REMOVALS_INTERVAL_MS, 10 s) replaces it with its gone
   * marker. Keep it above that interval plus a reconnect (2 s).
   */
  REDIS_RECONNECT_GRACE_MS: env.int(15_000, 0, 600_000),
  LOCAL_CACHE_MAX_ENTRIES: env.int(100_000, 100),
  /**
   * Unknown codes a client (an IPv4 address, an IPv6 /64) may look up per minute, and at
   * once: each costs a database lookup. Beyond them it gets 429 instead of the lookup;
   * links it asks for are still served.
   */
  REDIRECT_MISS_BUDGET: env.int(60, 1),
  REDIRECT_MISS_BURST: env.int(60, 1),
  /** Visits waiting for Kafka beyond this are dropped (and counted), never blocking redirects. */
  VISIT_QUEUE_MAX: env.int(200_000, 1000),
  /**
   * Visits a Kafka send carries at most: kafkajs encodes a send in one turn of the event loop,
   * which requests arriving meanwhile wait for (docs/reliability/performance.md).
   */
  VISIT_BATCH_MAX: env.int(1000, 1, 50_000),
  VISIT_FLUSH_INTERVAL_MS: env.int(50, 1, 10_000),
  /**
   * How long a stopping instance goes on publishing its queued visits (Kafka away: retrying)
   * before it hands what is left to analytics instead.
   */
  VISIT_DRAIN_TIMEOUT_MS: env.int(5000, 100, 20_000),
  /**
   * How long it then goes on handing them to analytics' internal ingest (ANALYTICS_URL)
   * before it gives up, logging at error and counting exactly how many it could hand to
   * neither (visit_events_dropped_total{reason="shutdown"}). 0: no hand-off. The two
   * together at most HAND_OFF_BUDGET_MS (20 s).
   */
  VISIT_HAND_OFF_TIMEOUT_MS: env.int(8000, 0, 20_000),
  /**
   * Set: visits are spooled here before their 302s leave, so a crash loses none (one folder an
   * instance, outliving the container). Unset: a crash loses the visits not yet published.
   */
  VISIT_SPOOL_DIR: env.folder(),
  /** The spool's size on disk at most; past it its oldest segments are deleted. */
  VISIT_SPOOL_MAX_BYTES: env.int(256 * 1024 * 1024, 1024 * 1024),
  /** Slow requests: see env.headersTimeoutMs. */
  HEADERS_TIMEOUT_MS: env.headersTimeoutMs(),
  REQUEST_TIMEOUT_MS: env.requestTimeoutMs(),
};

/**
 * What the drain and the hand-off may take together: the shutdown's limit less time to stop
 * taking requests before them and to close after them.
 */
const HAND_OFF_BUDGET_MS = SHUTDOWN_TIMEOUT_MS - 5000;

export type RedirectConfig = ReturnType<typeof loadRedirectConfig>;
export const loadRedirectConfig = (source: NodeJS.ProcessEnv = process.env) => {
  const config = checkKafkaSecurity(
    'redirect',
    loadConfig('redirect', redirectConfigShape, source),
  );
  const stopping = config.VISIT_DRAIN_TIMEOUT_MS + config.VISIT_HAND_OFF_TIMEOUT_MS;
  if (stopping > HAND_OFF_BUDGET_MS) {
    throw new ConfigError('redirect', [
      `VISIT_DRAIN_TIMEOUT_MS + VISIT_HAND_OFF_TIMEOUT_MS: ${stopping} ms, more than the ` +
        `${HAND_OFF_BUDGET_MS} a stopping instance has for them`,
    ]);
  }
  return config;
};
