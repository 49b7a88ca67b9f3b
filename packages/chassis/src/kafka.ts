import { Kafka, logLevel as KafkaLogLevel, type KafkaConfig, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';

export interface KafkaClientOptions {
  brokers: readonly string[];
  clientId: string;
  logger: Logger;
  extra?: Partial<KafkaConfig>;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [KafkaLogLevel.ERROR]: 'error',
  [KafkaLogLevel.WARN]: 'warn',
  [KafkaLogLevel.INFO]: 'info',
  [KafkaLogLevel.DEBUG]: 'debug',
};

// kafkajs 2 announces its partitioner change on every producer; we use its default.
process.env['KAFKAJS_NO_PARTITIONER_WARNING'] ??= '1';

/** A kafkajs client whose logs go through the service's JSON logger. */
export function createKafka({ brokers, clientId, logger, extra }: KafkaClientOptions): Kafka {
  return new Kafka({
    clientId,
    brokers: [...brokers],
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 5000 },
    logLevel: KafkaLogLevel.WARN,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        const { message, ...rest } = log;
        logger[LEVELS[level] ?? 'info']({ kafka: rest }, message);
      },
    ...extra,
  });
}
