import { parseArgs } from 'node:util';
import { createLogger } from '@shortener/chassis';
import { createKafka } from '@shortener/chassis-kafka';
import { loadAnalyticsConfig } from './config';
import { redrive, type RedriveFilter } from './ingest/redrive';

// `node dist/redrive-dead-letters.js [--from <time>] [--to <time>] [--reason <text>] [--dry-run]`:
// sends the dead letters of visits.dlq back to the visits topic once what refused them is
// fixed (docs/operations.md, "Re-driving dead letters"). Times are ISO 8601 (2026-11-26T10:00Z);
// the reason is a part of the dlq-reason header. Prints what it did, or with --dry-run what
// it would do, as JSON.
const USAGE =
  'usage: node dist/redrive-dead-letters.js [--from <ISO time>] [--to <ISO time>] ' +
  '[--reason <text>] [--dry-run]';

function time(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new Error(`--${name} ${value} is not a time (ISO 8601, say 2026-11-26T10:00Z)`);
  return at;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      reason: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
    },
  });
  const filter: RedriveFilter = {};
  const from = time('from', values.from);
  const to = time('to', values.to);
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  if (values.reason !== undefined) filter.reason = values.reason;
  const config = loadAnalyticsConfig();
  // Logs on stderr: stdout carries the report alone.
  const logger = createLogger('analytics', config.LOG_LEVEL, process.stderr);
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'analytics-redrive',
    logger,
    security: config,
  });
  const dryRun = values['dry-run'];
  const report = await redrive(
    kafka,
    { deadLetters: config.VISITS_DLQ_TOPIC, visits: config.VISITS_TOPIC },
    filter,
    { dryRun, logger },
  );
  const total = Object.values(report.redriven).reduce((sum, n) => sum + n, 0);
  process.stdout.write(
    `${JSON.stringify({
      dryRun,
      [dryRun ? 'wouldRedrive' : 'redriven']: total,
      byReason: report.redriven,
      read: report.read,
      skipped: report.skipped,
    })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(1);
  },
);
