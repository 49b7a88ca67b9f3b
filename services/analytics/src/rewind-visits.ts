import { parseArgs } from 'node:util';
import { parseRewindTime, rewindGroup } from './ingest/rewind';
import { runOperatorCommand } from './operator-command';

// `node dist/rewind-visits.js --to <time> [--dry-run]`: after PostgreSQL is restored from a
// backup, sets the analytics consumer group (KAFKA_CONSUMER_GROUP) back to the visits
// published since a time before the backup, so that they are stored again
// (docs/operations/backups.md). The time is ISO 8601 with its zone (2026-11-26T10:00Z). Analytics
// must be stopped. Prints, per partition, where the group was and where it is set, as JSON.
runOperatorCommand(
  'rewind',
  'usage: node dist/rewind-visits.js --to <ISO 8601 time> [--dry-run]',
  'The rewind runs as the Kafka user shortener-analytics (k8s/kafka/kafka-users.yaml: Read on ' +
    'topic visits and on group analytics).',
  () => {
    const { values } = parseArgs({
      options: { to: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
    });
    return { to: parseRewindTime(values.to), dryRun: values['dry-run'] };
  },
  async ({ to, dryRun }, { config, kafka }) => ({
    dryRun,
    ...(await rewindGroup(kafka, {
      group: config.KAFKA_CONSUMER_GROUP,
      topic: config.VISITS_TOPIC,
      to,
      dryRun,
    })),
  }),
);
