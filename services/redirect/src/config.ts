import { env, loadConfig } from '@shortener/chassis';
import { checkKafkaSecurity, kafkaEnv } from '@shortener/chassis-kafka';

export const redirectConfigShape = {
  PORT: env.port(7004),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  /** Set: /readyz and /metrics only on this port (on OPS_HOST, else HOST), none on PORT. */
  OPS_PORT: env.opsPort(),
  OPS_HOST: env.opsHost(),
  /**
   * Set: /r/ is answered on this Unix socket too, for an edge on the same machine (`npm run
   * stack` puts nginx's /r/ there: no TCP between the two spares 4-6 us of CPU a redirect).
   * Whoever connects to it is taken for that edge, its X-Forwarded-For believed: the socket
   * is opened to every local user (nginx's workers may run as another one), so its folder
   * decides who reaches it.
   */
  UNIX_SOCKET: env.socketPath(),
  /** Shared with the other services: signs the resolve calls to the links service. */
  INTERNAL_API_SECRET: env.secret(),
  /** The link cache (the embedded mode passes its in-process one instead). */
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
  /** Where visits are published (the embedded mode hands them over in its process instead). */
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  /** Kafka authentication (SASL/SCRAM in Compose and Kubernetes): see @shortener/chassis-kafka. */
  KAFKA_SASL_MECHANISM: kafkaEnv.saslMechanism(),
  KAFKA_USERNAME: kafkaEnv.username(),
  KAFKA_PASSWORD: kafkaEnv.password(),
  KAFKA_SSL: kafkaEnv.ssl(),
  LINKS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7002'),
  /** Proxies whose X-Forwarded-For is believed, as the gateway reads them (compileTrustedProxies). */
  TRUSTED_PROXIES: env.list(''),
  /** How long this instance answers a code from memory (deletes also arrive by broadcast). */
  LOCAL_CACHE_TTL_MS: env.int(1000, 0, 60_000),
  /** How long an unknown code is remembered as unknown. */
  NEGATIVE_CACHE_TTL_MS: env.int(1000, 0, 60_000),
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
   * Visits a Kafka send carries at most. kafkajs encodes a send (copies and a CRC-32C in
   * JavaScript over every byte) in one run of the event loop, which the requests arriving
   * meanwhile wait for: 2,000 visits (about 170 KB) took 0.5-1.8 ms of it, a share of the
   * redirect's p99. 1,000 halves that wait at the same CPU a redirect, and with a send taking
   * 5 ms (packing and the broker's answer included) still moves 200,000 visits a second.
   */
  VISIT_BATCH_MAX: env.int(1000, 1, 50_000),
  VISIT_FLUSH_INTERVAL_MS: env.int(50, 1, 10_000),
};

export type RedirectConfig = ReturnType<typeof loadRedirectConfig>;
export const loadRedirectConfig = (source: NodeJS.ProcessEnv = process.env) =>
  checkKafkaSecurity('redirect', loadConfig('redirect', redirectConfigShape, source));
