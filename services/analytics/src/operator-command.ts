import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { createLogger } from '@shortener/chassis';
import { createKafka } from '@shortener/chassis-kafka';
import { loadAnalyticsConfig, type AnalyticsConfig } from './config';

// What the analytics image's operator commands (rewind-visits, redrive-dead-letters) share:
// how they read a time, and how they run, log and report.

/** A time with its zone: a zoneless one would be read in whatever zone the pod runs in. */
const ZONED = /(Z|[+-]\d{2}:?\d{2})$/i;

/** The value of a command's --`flag`, an ISO 8601 time with its zone, in ms since the epoch. */
export function commandTime(flag: string, value: string): number {
  const at = Date.parse(value);
  if (!ZONED.test(value.trim()) || Number.isNaN(at)) {
    throw new Error(
      `--${flag} ${value} is not a time with its zone (ISO 8601, say 2026-11-26T10:00Z)`,
    );
  }
  return at;
}

export interface CommandTools {
  config: AnalyticsConfig;
  logger: Logger;
  kafka: Kafka;
}

/**
 * Runs an operator command with the service's configuration: its arguments read first, its
 * logs on stderr, its report as one JSON line on stdout and exit 0; or the error and `usage`
 * on stderr and exit 1.
 */
export function runOperatorCommand<Args>(
  name: string,
  usage: string,
  readArgs: () => Args,
  run: (args: Args, tools: CommandTools) => Promise<Record<string, unknown>>,
): void {
  const main = async (): Promise<void> => {
    const args = readArgs();
    const config = loadAnalyticsConfig();
    const logger = createLogger('analytics', config.LOG_LEVEL, process.stderr);
    const kafka = createKafka({
      brokers: config.KAFKA_BROKERS,
      clientId: `analytics-${name}`,
      logger,
      security: config,
    });
    const report = await run(args, { config, logger, kafka });
    process.stdout.write(`${JSON.stringify(report)}\n`);
  };
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage}\n`);
      process.exit(1);
    },
  );
}
