import { z } from 'zod';
import { env, loadConfig, serviceConfigShape } from '@shortener/chassis';
import { checkKafkaSecurity, kafkaConfigShape } from '@shortener/chassis-kafka';
import { databaseConfigShape } from '@shortener/chassis-postgres';
import { DELETED_CODE_KEPT_DAYS, VISITS_DLQ_TOPIC, VISITS_TOPIC } from '@shortener/contracts';

export const analyticsConfigShape = {
  ...serviceConfigShape(7003),
  ...databaseConfigShape,
  /** Where the visits stored are announced to the gateways' live streams (pub/sub). */
  REDIS_URL: env.redisUrl(),
  ...kafkaConfigShape,
  KAFKA_CONSUMER_GROUP: env.string('analytics'),
  /**
   * How long the group waits for a heartbeat before moving a consumer's partitions: a killed
   * consumer stops ingest about this long (the broker allows 6 s to 30 min by default).
   */
  KAFKA_SESSION_TIMEOUT_MS: env.int(6000, 1000, 1_800_000),
  VISITS_TOPIC: env.string(VISITS_TOPIC),
  /** Where events that fail the schema go, with a header naming why. */
  VISITS_DLQ_TOPIC: env.string(VISITS_DLQ_TOPIC),
  /**
   * How often the consumer group's lag is read from Kafka for analytics_consumer_lag (two
   * small admin requests): alerts and autoscaling need no exporter.
   */
  CONSUMER_LAG_INTERVAL_MS: env.int(15_000, 1000),
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
   * database shipped with the service (docs/operations/upgrades.md says how to update it).
   */
  GEOIP_DATABASE: z.string().min(1).optional(),
  /** Days a deleted link's tombstone is kept, dropping its late events. */
  TOMBSTONE_RETENTION_DAYS: env.int(DELETED_CODE_KEPT_DAYS, 1, 3650),
  TOMBSTONE_PURGE_INTERVAL_MS: env.int(3_600_000, 1000),
  /**
   * Whole months of raw visits kept before the current one (each visit at least that long);
   * older months' partitions are dropped by the purge round, their rollups (stats, counts)
   * stay. Unset: every visit is kept.
   */
  VISIT_RETENTION_MONTHS: z.coerce.number().int().min(1).max(1200).optional(),
};

/**
 * What the operator commands of the image (redrive-dead-letters, rewind-visits) read: Kafka
 * and the topic and group names only, so a Job that runs one needs its Kafka user's password
 * and nothing of the service's (no internal secret, no database).
 */
const commandVariables = {
  LOG_LEVEL: env.logLevel(),
  ...kafkaConfigShape,
  KAFKA_CONSUMER_GROUP: analyticsConfigShape.KAFKA_CONSUMER_GROUP,
  VISITS_TOPIC: analyticsConfigShape.VISITS_TOPIC,
  VISITS_DLQ_TOPIC: analyticsConfigShape.VISITS_DLQ_TOPIC,
};

export type AnalyticsCommandConfig = ReturnType<typeof loadAnalyticsCommandConfig>;
export const loadAnalyticsCommandConfig = (source: NodeJS.ProcessEnv = process.env) =>
  checkKafkaSecurity('analytics', loadConfig('analytics', commandVariables, source));

export type AnalyticsConfig = ReturnType<typeof loadAnalyticsConfig>;
export const loadAnalyticsConfig = (source: NodeJS.ProcessEnv = process.env) =>
  checkKafkaSecurity('analytics', loadConfig('analytics', analyticsConfigShape, source));
