import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { createLogger } from '@shortener/chassis';
import { aclRefusal, createKafka } from '@shortener/chassis-kafka';
import { loadAnalyticsCommandConfig, type AnalyticsCommandConfig } from './config';

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

interface CommandTools {
  config: AnalyticsCommandConfig;
  logger: Logger;
  kafka: Kafka;
}

/**
 * Runs an operator command with the service's Kafka configuration: its arguments read first,
 * its logs on stderr, its report as one JSON line on stdout and exit 0; or the error and
 * `usage` on stderr and exit 1. A refusal by Kafka's ACLs says which user was refused and
 * `acls`, what the command needs.
 */
export function runOperatorCommand<Args>(
  name: string,
  usage: string,
  acls: string,
  readArgs: () => Args,
  run: (args: Args, tools: CommandTools) => Promise<Record<string, unknown>>,
): void {
  let user: string | undefined;
  const main = async (): Promise<void> => {
    const args = readArgs();
    const config = loadAnalyticsCommandConfig();
    user = config.KAFKA_USERNAME;
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
      const refused = aclRefusal(error);
      const message = refused
        ? `Kafka refused the ${user ? `user ${user}` : 'client (no KAFKA_USERNAME)'}: ${refused}. ${acls}`
        : error instanceof Error
          ? error.message
          : String(error);
      process.stderr.write(`${message}\n${usage}\n`);
      process.exit(1);
    },
  );
}
