import { parseArgs } from 'node:util';
import { createLogger } from '@shortener/chassis';
import { createKafka } from '@shortener/chassis-kafka';
import { loadAnalyticsConfig } from './config';
import { parseRewindTime, rewindGroup } from './ingest/rewind';

// `node dist/rewind-visits.js --to <time> [--dry-run]`: after PostgreSQL is restored from a
// backup, sets the analytics consumer group (KAFKA_CONSUMER_GROUP) back to the visits
// published since a time before the backup, so that they are stored again (docs/operations.md,
// "Backups and restore"). The time is ISO 8601 with its zone (2026-11-26T10:00Z). Analytics
// must be stopped. Prints, per partition, where the group was and where it is set, as JSON.
const USAGE = 'usage: node dist/rewind-visits.js --to <ISO 8601 time> [--dry-run]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { to: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
  });
  const to = parseRewindTime(values.to);
  const config = loadAnalyticsConfig();
  // Logs on stderr: stdout carries the report alone.
  const logger = createLogger('analytics', config.LOG_LEVEL, process.stderr);
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'analytics-rewind',
    logger,
    security: config,
  });
  const dryRun = values['dry-run'];
  const report = await rewindGroup(kafka, {
    group: config.KAFKA_CONSUMER_GROUP,
    topic: config.VISITS_TOPIC,
    to,
    dryRun,
  });
  process.stdout.write(`${JSON.stringify({ dryRun, ...report })}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(1);
  },
);
