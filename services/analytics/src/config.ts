import { z } from 'zod';
import { env, loadConfig } from '@shortener/chassis';
import { checkKafkaSecurity, kafkaEnv } from '@shortener/chassis-kafka';
import { VISITS_DLQ_TOPIC, VISITS_TOPIC } from '@shortener/contracts';

export const analyticsConfigShape = {
  PORT: env.port(7003),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  /** Set: /readyz and /metrics only on this port (on OPS_HOST, else HOST), none on PORT. */
  OPS_PORT: env.opsPort(),
  OPS_HOST: env.opsHost(),
  /** Shared with the gateway: signs and checks internal calls. */
  INTERNAL_API_SECRET: env.secret(),
  DATABASE_URL: env.url(['postgres', 'postgresql'], 'postgres://postgres@127.0.0.1:5432/shortener'),
  DB_MIGRATE: env.bool(true),
  /** Where the visits stored are announced to the gateways' live streams (pub/sub). */
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  /** Kafka authentication (SASL/SCRAM in Compose and Kubernetes): see @shortener/chassis-kafka. */
  KAFKA_SASL_MECHANISM: kafkaEnv.saslMechanism(),
  KAFKA_USERNAME: kafkaEnv.username(),
  KAFKA_PASSWORD: kafkaEnv.password(),
  KAFKA_SSL: kafkaEnv.ssl(),
  KAFKA_CONSUMER_GROUP: env.string('analytics'),
  /**
   * How long the group waits for a consumer's heartbeat before giving its partitions to
   * another member (or to its own next incarnation): a consumer killed without leaving the
   * group stops ingest for about this long. The broker refuses values outside its
   * group.min/max.session.timeout.ms (6 s and 30 min by default). Heartbeats go every
   * third of it, at most 3 s apart.
   */
  KAFKA_SESSION_TIMEOUT_MS: env.int(6000, 1000, 1_800_000),
  VISITS_TOPIC: env.string(VISITS_TOPIC),
  /** Where events that fail the schema go, with a header naming why. */
  VISITS_DLQ_TOPIC: env.string(VISITS_DLQ_TOPIC),
  /** Partitions whose batches are stored at the same time (each in its own transaction). */
  INGEST_CONCURRENCY: env.int(3, 1, 64),
  /** Rows per multi-row INSERT; a bigger batch is split into several, in one transaction. */
  INGEST_CHUNK_ROWS: env.int(5000, 1, 50_000),
  /** Distinct User-Agent strings whose parse is remembered. */
  USER_AGENT_CACHE_SIZE: env.int(10_000, 0, 1_000_000),
  /** Store visitor IPs with the last IPv4 octet / all but the first 48 IPv6 bits zeroed. */
  ANONYMIZE_IP: env.bool(false),
  /**
   * The IP-to-country database (MaxMind .mmdb format); unset: the CC0 geo-whois-asn-country
   * database shipped with the service (docs/operations.md says how to update it).
   */
  GEOIP_DATABASE: z.string().min(1).optional(),
  /** Days a deleted link's tombstone is kept, dropping its late events. */
  TOMBSTONE_RETENTION_DAYS: env.int(90, 1, 3650),
  TOMBSTONE_PURGE_INTERVAL_MS: env.int(3_600_000, 1000),
};

export type AnalyticsConfig = ReturnType<typeof loadAnalyticsConfig>;
export const loadAnalyticsConfig = (source: NodeJS.ProcessEnv = process.env) =>
  checkKafkaSecurity('analytics', loadConfig('analytics', analyticsConfigShape, source));
