#!/usr/bin/env node
// Local servers for the distributed mode and the tests: PostgreSQL, Redis, Apache Kafka.
//
//   node infra/infra.mjs up [--db NAME]... [--quiet]   start what is missing, make databases and topics
//   node infra/infra.mjs down [--wipe] [--quiet]       stop only what `up` started (--wipe: Kafka data too)
//   node infra/infra.mjs status                        one line per server
//
// Servers that already run (or that DATABASE_URL, REDIS_URL, KAFKA_BROKERS point at) are
// used as they are and never stopped; what `up` starts is recorded in .infra/state.json.
// The same functions are exported for the test runner and the fault tests.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { InfraError, reason } from './lib/errors.mjs';
import {
  ensureKafka,
  kafkaBrokers,
  kafkaStatus,
  startLocalKafka,
  stopLocalKafka,
  wantedTopics,
  wipeKafkaData,
} from './lib/kafka.mjs';
import { reporter, seconds } from './lib/output.mjs';
import { ensurePostgres, postgresStatus, postgresTarget, stopPostgres } from './lib/postgres.mjs';
import { ensureRedis, redisStatus, redisTarget, stopRedis } from './lib/redis.mjs';
import { readState, withLock } from './lib/state.mjs';

export { InfraError, kafkaBrokers };

/**
 * @typedef {object} OutputOptions
 * @property {boolean} [quiet] print nothing (errors are still thrown)
 * @property {(line: string) => void} [log] where lines go (default console.log)
 *
 * @typedef {object} UpSummary
 * @property {{ address: string, started: boolean, cluster?: string, pid?: number, created: string[] }} postgres
 * @property {{ address: string, started: boolean, pid?: number }} redis
 * @property {{ brokers: string[], external: boolean, started: boolean, pid?: number, created: string[] }} kafka
 * @property {number} ms
 */

/**
 * Makes PostgreSQL, Redis and Kafka usable, starting only what is not running.
 * On failure it stops whatever this call started, then throws an InfraError.
 * @param {OutputOptions & { databases?: string[], signal?: AbortSignal, timeoutMs?: number }} [options]
 *   databases: extra databases to create (the one in DATABASE_URL always is);
 *   timeoutMs: how long to wait for Kafka to become ready (default 60 s).
 * @returns {Promise<UpSummary>} `started` flags tell `down({ only })` what this call started.
 */
export function up(options = {}) {
  const { databases = [], signal, timeoutMs } = options;
  const report = reporter(options);
  return withLock(async () => {
    const began = Date.now();
    // Bad settings fail here, before anything is started that would need undoing.
    postgresTarget();
    redisTarget();
    wantedTopics();
    const before = readState();
    try {
      const postgres = await ensurePostgres({ databases, report });
      const redis = await ensureRedis({ report });
      const kafka = await ensureKafka({ report, signal, timeoutMs });
      return { postgres, redis, kafka, ms: Date.now() - began };
    } catch (error) {
      await rollback(before, report);
      throw error;
    }
  });
}

/** Undoes a failed `up`: anything in the state file now that was not there before. */
async function rollback(before, report) {
  const after = readState();
  const startedNow = (key) =>
    after[key] && JSON.stringify(after[key]) !== JSON.stringify(before[key]);
  const steps = [
    ['kafka', () => stopLocalKafka({ report, graceMs: 10_000 })],
    ['redis', () => stopRedis({ report })],
    ['postgres', () => stopPostgres({ report })],
  ];
  for (const [key, stop] of steps) {
    if (!startedNow(key)) continue;
    try {
      await stop();
    } catch (error) {
      report.note(`could not stop ${key} after the failure: ${reason(error)}`);
    }
  }
}

/**
 * Stops what `up` started, per .infra/state.json; servers that were already running stay.
 * @param {OutputOptions & { wipe?: boolean, only?: UpSummary }} [options]
 *   wipe: also delete Kafka's data folder; only: stop just what that `up` call started
 *   (a test runner passes its summary so it never stops a developer's servers).
 */
export function down(options = {}) {
  const { wipe = false, only } = options;
  const report = reporter(options);
  return withLock(async () => {
    const wanted = (key) => !only || Boolean(only[key]?.started);
    const result = {
      kafka: { stopped: false },
      redis: { stopped: false },
      postgres: { stopped: false },
    };
    if (wanted('kafka')) result.kafka = await stopLocalKafka({ report });
    if (wanted('redis')) result.redis = await stopRedis({ report });
    if (wanted('postgres')) result.postgres = await stopPostgres({ report });
    result.wiped = wipe ? wipeKafkaData({ report }) : false;
    if (!Object.values(result).some((entry) => entry === true || entry?.stopped)) {
      report.text('Nothing to stop: infra started none of the running servers.');
    }
    return result;
  });
}

/**
 * One entry per server: reachable or not, and whether infra started it.
 * @param {OutputOptions} [options]
 * @returns {Promise<{ name: string, address: string, reachable: boolean, detail: string, startedByInfra: boolean, pid?: number }[]>}
 */
export async function status(options = {}) {
  const report = reporter(options);
  const servers = await Promise.all([postgresStatus(), redisStatus(), kafkaStatus()]);
  for (const server of servers) {
    const origin = server.startedByInfra
      ? `started by infra${server.pid ? `, pid ${server.pid}` : ''}${server.cluster ? `, cluster ${server.cluster}` : ''}`
      : server.external
        ? 'from KAFKA_BROKERS, not started by infra'
        : 'not started by infra';
    const state = server.reachable
      ? 'reachable'
      : `not reachable${server.detail ? ` (${server.detail})` : ''}`;
    report.line(server.name, server.address, `${state}; ${origin}`);
  }
  return servers;
}

/**
 * Starts this checkout's local Kafka broker if it is not running and waits until it is
 * ready (group coordinators answer); creates missing topics. For fault tests.
 * @param {OutputOptions & { signal?: AbortSignal, timeoutMs?: number }} [options]
 * @returns {Promise<{ brokers: string[], started: boolean, pid?: number, created: string[] }>}
 */
export function startKafka(options = {}) {
  const report = reporter(options);
  return withLock(() =>
    startLocalKafka({ report, signal: options.signal, timeoutMs: options.timeoutMs }),
  );
}

/**
 * Stops the local broker: SIGTERM (clean shutdown, SIGKILL after 30 s) or SIGKILL (a crash).
 * @param {OutputOptions & { signal?: 'SIGTERM' | 'SIGKILL' }} [options]
 * @returns {Promise<{ stopped: boolean, pid?: number, forced?: boolean, ms?: number }>}
 */
export function stopKafka(options = {}) {
  const report = reporter(options);
  return withLock(() => stopLocalKafka({ report, signal: options.signal ?? 'SIGTERM' }));
}

// ---------------------------------------------------------------- command line

const USAGE =
  'usage: node infra/infra.mjs up [--db NAME]... [--quiet] | down [--wipe] [--quiet] | status';

function parseArgs(argv) {
  const parsed = { command: undefined, databases: [], wipe: false, quiet: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--wipe') parsed.wipe = true;
    else if (arg === '--quiet' || arg === '-q') parsed.quiet = true;
    else if (arg === '--db' && argv[i + 1]) parsed.databases.push(argv[(i += 1)]);
    else if (arg.startsWith('--db=')) parsed.databases.push(arg.slice('--db='.length));
    else if (arg === '--help' || arg === '-h') parsed.command = 'help';
    else if (!arg.startsWith('-') && !parsed.command) parsed.command = arg;
    else throw new InfraError(`Unknown argument "${arg}". ${USAGE}`);
  }
  return parsed;
}

async function main(argv) {
  const controller = new AbortController();
  // First Ctrl-C: stop waiting and undo what was started. Second: leave at once.
  process.once('SIGINT', () => {
    controller.abort();
    process.once('SIGINT', () => process.exit(130));
  });
  const args = parseArgs(argv);
  const output = { quiet: args.quiet };
  switch (args.command) {
    case 'up': {
      const summary = await up({ ...output, databases: args.databases, signal: controller.signal });
      if (!args.quiet) console.log(`infra ready in ${seconds(summary.ms)}`);
      return 0;
    }
    case 'down':
      await down({ ...output, wipe: args.wipe });
      return 0;
    case 'status': {
      const servers = await status(output);
      // Non-zero when something is down, so scripts can `infra:status && ...`.
      return servers.every((server) => server.reachable) ? 0 : 3;
    }
    case 'help':
      console.log(USAGE);
      return 0;
    default:
      throw new InfraError(args.command ? `Unknown command "${args.command}". ${USAGE}` : USAGE);
  }
}

function isMainModule() {
  try {
    return pathToFileURL(fs.realpathSync(process.argv[1])).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isMainModule()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      if (error instanceof InfraError) {
        console.error(`infra: ${error.message}`);
        for (const line of error.details) console.error(line);
      } else {
        console.error(`infra: unexpected error: ${reason(error)}`);
        if (process.env.INFRA_DEBUG) console.error(error.stack);
        else console.error('  (set INFRA_DEBUG=1 to see the stack trace)');
      }
      process.exit(1);
    },
  );
}
