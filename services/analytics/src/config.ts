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
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  /** Kafka authentication (SASL/SCRAM in Compose and Kubernetes): see @shortener/chassis-kafka. */
  KAFKA_SASL_MECHANISM: kafkaEnv.saslMechanism(),
  KAFKA_USERNAME: kafkaEnv.username(),
  KAFKA_PASSWORD: kafkaEnv.password(),
  KAFKA_SSL: kafkaEnv.ssl(),
  KAFKA_CONSUMER_GROUP: env.string('analytics'),
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
  /** Days a deleted link's tombstone is kept, dropping its late events. */
  TOMBSTONE_RETENTION_DAYS: env.int(90, 1, 3650),
  TOMBSTONE_PURGE_INTERVAL_MS: env.int(3_600_000, 1000),
};

export type AnalyticsConfig = ReturnType<typeof loadAnalyticsConfig>;
export const loadAnalyticsConfig = (source: NodeJS.ProcessEnv = process.env) =>
  checkKafkaSecurity('analytics', loadConfig('analytics', analyticsConfigShape, source));
