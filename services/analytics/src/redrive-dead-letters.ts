import { parseArgs } from 'node:util';
import { redrive, type RedriveFilter } from './ingest/redrive';
import { commandTime, runOperatorCommand } from './operator-command';

// `node dist/redrive-dead-letters.js [--from <time>] [--to <time>] [--reason <text>] [--dry-run]`:
// sends the dead letters of visits.dlq back to the visits topic once what refused them is
// fixed (docs/operations/redrive.md). Times are ISO 8601 with their zone
// (2026-11-26T10:00Z); the reason is a part of the dlq-reason header. Prints what it did, or
// with --dry-run what it would do, as JSON.
runOperatorCommand(
  'redrive',
  'usage: node dist/redrive-dead-letters.js [--from <ISO 8601 time>] [--to <ISO 8601 time>] ' +
    '[--reason <text>] [--dry-run]',
  'The re-drive runs as the Kafka user shortener-redrive (k8s/kafka/kafka-users.yaml: Read on ' +
    'topic visits.dlq, Write on topic visits, Read and Delete on groups analytics-redrive-*): ' +
    'KAFKA_USERNAME=shortener-redrive with its password, not in an analytics pod.',
  () => {
    const { values } = parseArgs({
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        reason: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
      },
    });
    const filter: RedriveFilter = {};
    if (values.from !== undefined) filter.from = commandTime('from', values.from);
    if (values.to !== undefined) filter.to = commandTime('to', values.to);
    if (values.reason !== undefined) filter.reason = values.reason;
    return { filter, dryRun: values['dry-run'] };
  },
  async ({ filter, dryRun }, { config, logger, kafka }) => {
    const report = await redrive(
      kafka,
      { deadLetters: config.VISITS_DLQ_TOPIC, visits: config.VISITS_TOPIC },
      filter,
      { dryRun, logger },
    );
    const total = Object.values(report.redriven).reduce((sum, n) => sum + n, 0);
    return {
      dryRun,
      [dryRun ? 'wouldRedrive' : 'redriven']: total,
      byReason: report.redriven,
      read: report.read,
      skipped: report.skipped,
    };
  },
);
