import type * as KafkaJs from 'kafkajs';
import type {
  Kafka,
  KafkaConfig,
  LogEntry,
  PartitionerArgs,
  Producer,
  ProducerConfig,
  SASLOptions,
} from 'kafkajs';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ConfigError, env } from '@shortener/chassis';
import { patchKafkaRequestQueue } from './request-queue';

/**
 * kafkajs, loaded by the first client made: a process that never talks to Kafka (the
 * embedded mode, unless KAFKA_BROKERS is set) never loads it, though its services read
 * their Kafka settings from here. require, not import(): making a client stays
 * synchronous.
 */
function kafkajs(): typeof KafkaJs {
  patchKafkaRequestQueue();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('kafkajs') as typeof KafkaJs;
}

export const KAFKA_SASL_MECHANISMS = ['scram-sha-256', 'scram-sha-512', 'plain'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];

/**
 * How a service authenticates to Kafka, the variables of each service that has a Kafka client
 * (KAFKA_PASSWORD also as KAFKA_PASSWORD_FILE). No mechanism: no authentication, the local
 * broker of `npm run infra:up`.
 */
export const kafkaEnv = {
  saslMechanism: () => z.enum(KAFKA_SASL_MECHANISMS).optional(),
  username: () => z.string().min(1).optional(),
  password: () => z.string().min(1).optional(),
  ssl: () => env.bool(false),
};

/** The variables of a service with a Kafka client (spread into its config shape). */
export const kafkaConfigShape = {
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  /** Kafka authentication (SASL/SCRAM in Compose and Kubernetes): see kafkaEnv. */
  KAFKA_SASL_MECHANISM: kafkaEnv.saslMechanism(),
  KAFKA_USERNAME: kafkaEnv.username(),
  KAFKA_PASSWORD: kafkaEnv.password(),
  KAFKA_SSL: kafkaEnv.ssl(),
};

export interface KafkaSecuritySettings {
  KAFKA_SASL_MECHANISM?: KafkaSaslMechanism | undefined;
  KAFKA_USERNAME?: string | undefined;
  KAFKA_PASSWORD?: string | undefined;
  KAFKA_SSL: boolean;
}

/** What is missing or contradictory in the Kafka security settings; [] when they hold. */
export function kafkaSecurityProblems(settings: KafkaSecuritySettings): string[] {
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_USERNAME: username } = settings;
  const password = settings.KAFKA_PASSWORD;
  if (mechanism !== undefined) {
    return [
      ...(username === undefined ? ['KAFKA_USERNAME'] : []),
      ...(password === undefined ? ['KAFKA_PASSWORD'] : []),
    ].map((name) => `${name}: is required when KAFKA_SASL_MECHANISM is set (${mechanism})`);
  }
  return [
    ...(username === undefined ? [] : ['KAFKA_USERNAME']),
    ...(password === undefined ? [] : ['KAFKA_PASSWORD']),
  ].map(
    (name) =>
      `${name}: is set but KAFKA_SASL_MECHANISM is not (${KAFKA_SASL_MECHANISMS.join(', ')}), so it would not be used`,
  );
}

/** A loaded service config, after its Kafka security settings are checked together. */
export function checkKafkaSecurity<Config extends KafkaSecuritySettings>(
  service: string,
  config: Config,
): Config {
  const problems = kafkaSecurityProblems(config);
  if (problems.length > 0) throw new ConfigError(service, problems);
  return config;
}

/**
 * Kafka's refusal of an ACL (TOPIC_, GROUP_ or CLUSTER_AUTHORIZATION_FAILED) in `error` or
 * what caused it (kafkajs wraps the broker's answer in its retry errors), or undefined. A
 * refused consumer group reaches a consumer only as "Failed to find group coordinator":
 * kafkajs tries the next broker on GROUP_AUTHORIZATION_FAILED and keeps only that.
 */
export function aclRefusal(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const type = (cause as { type?: unknown }).type;
    if (typeof type === 'string' && type.endsWith('_AUTHORIZATION_FAILED')) return cause.message;
    if (cause.name === 'KafkaJSGroupCoordinatorNotFound') {
      return 'no coordinator for its consumer group, which is how a group the user may not read (GROUP_AUTHORIZATION_FAILED) reaches the client';
    }
  }
  return undefined;
}

/** The kafkajs `ssl` and `sasl` options the settings ask for. */
export function kafkaSecurity(settings: KafkaSecuritySettings): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_USERNAME: username } = settings;
  const password = settings.KAFKA_PASSWORD;
  if (mechanism === undefined) return { ssl: settings.KAFKA_SSL };
  if (username === undefined || password === undefined) {
    throw new Error(kafkaSecurityProblems(settings).join('; '));
  }
  // kafkajs types each mechanism apart; the three take the same username and password.
  const sasl = { mechanism, username, password } as SASLOptions;
  return { ssl: settings.KAFKA_SSL, sasl };
}

export interface KafkaClientOptions {
  brokers: readonly string[];
  clientId: string;
  logger: Logger;
  /** The service's config: KAFKA_SASL_MECHANISM, KAFKA_USERNAME, KAFKA_PASSWORD, KAFKA_SSL. */
  security: KafkaSecuritySettings;
  extra?: Partial<KafkaConfig>;
}

/** A kafkajs client whose logs go through the service's JSON logger. */
export function createKafka(options: KafkaClientOptions): Kafka {
  return new (kafkajs().Kafka)(kafkaClientConfig(options));
}

/**
 * A producer with kafkajs's default partitioner named explicitly (keyed messages go to the
 * partition of their key's murmur2 hash, as the Java client does): kafkajs 2 warns on every
 * producer that does not name one.
 */
export function createProducer(
  kafka: Kafka,
  config: Omit<ProducerConfig, 'createPartitioner'>,
): Producer {
  return kafka.producer({
    ...config,
    createPartitioner: kafkajs().Partitioners.DefaultPartitioner,
  });
}

/** kafkajs's default partitioner (murmur2 of the message's key, as the Java client's). */
export function defaultPartitioner(): (args: PartitionerArgs) => number {
  return kafkajs().Partitioners.DefaultPartitioner();
}

/** The kafkajs configuration createKafka uses. */
export function kafkaClientConfig({
  brokers,
  clientId,
  logger,
  security,
  extra,
}: KafkaClientOptions): KafkaConfig {
  const { logLevel } = kafkajs();
  const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
    [logLevel.ERROR]: 'error',
    [logLevel.WARN]: 'warn',
    [logLevel.INFO]: 'info',
    [logLevel.DEBUG]: 'debug',
  };
  return {
    clientId,
    brokers: [...brokers],
    ...kafkaSecurity(security),
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 5000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        const { message, ...rest } = log;
        logger[levels[level] ?? 'info']({ kafka: rest }, message);
      },
    ...extra,
  };
}
