// `npm test`: every test, on a fresh machine. Builds, brings up PostgreSQL, Redis and Kafka
// (starting only what is not running), runs the suites against them on their own test
// database and Redis index, then stops only what it started. Exits non-zero on any failure.
//
//   npm test                   everything
//   npm test -- --keep-infra   leave what it started running (faster reruns)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNginx } from '../infra/edge.mjs';
import { down, up } from '../infra/infra.mjs';
import { run } from './lib/processes.mjs';
import { ensurePreviousRelease } from './previous-release.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keepInfra = process.argv.includes('--keep-infra');
const artifacts = path.join(root, 'artifacts');
mkdirSync(artifacts, { recursive: true });

const defaults = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/shortener',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

/** Tests never touch the development data: their own database and Redis index. */
function testServers() {
  const database = new URL(process.env.DATABASE_URL ?? defaults.DATABASE_URL);
  database.pathname = '/shortener_test';
  const redis = new URL(process.env.REDIS_URL ?? defaults.REDIS_URL);
  redis.pathname = '/1';
  return { databaseUrl: database.toString(), redisUrl: redis.toString() };
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * What the suites need from Debian: Chromium for the browser journeys (test tools never
 * download a browser of their own), nginx for the edge's tests (infra/edge.mjs), and promtool
 * and Prometheus (Debian's prometheus package) for the alert rules' tests and their live run.
 * Installed here when missing and we may (root with apt), else we say how.
 */
async function ensureFromDebian({ what, present, pkg, hint }) {
  if (present()) return true;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    console.error(`${what} is missing: install it (Debian: sudo apt-get install ${pkg})${hint}.`);
    return false;
  }
  console.log(`Installing ${what} from Debian (once, about a minute)...`);
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if ((await run('apt-get', ['update', '-qq'], { env: aptEnv })) !== 0) return false;
  await run('apt-get', ['install', '-y', '-qq', pkg], { env: aptEnv });
  return present();
}

const ensureChromium = () =>
  ensureFromDebian({
    what: `Chromium (${CHROMIUM})`,
    present: () => existsSync(CHROMIUM),
    pkg: 'chromium',
    hint: ' or set CHROMIUM_PATH',
  });

const ensureNginx = () =>
  ensureFromDebian({
    what: 'nginx',
    present: () => findNginx() !== null,
    pkg: 'nginx',
    hint: ' or set NGINX_PATH',
  });

const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';

/** promtool for the rules' unit tests, Prometheus itself for the live alert scenario. */
const ensurePrometheus = () =>
  ensureFromDebian({
    what: 'Prometheus and promtool',
    present: () =>
      spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0 &&
      existsSync(PROMETHEUS),
    pkg: 'prometheus',
    hint: ' or set PROMETHEUS_PATH',
  });

function section(title) {
  console.log(`\n== ${title}`);
}

function countJest(file) {
  if (!existsSync(file)) return { passed: 0, failed: 0 };
  const results = JSON.parse(readFileSync(file, 'utf8'));
  return {
    passed: results.numPassedTests,
    failed: results.numFailedTests + (results.numRuntimeErrorTestSuites ?? 0),
  };
}

function countVitest(file) {
  if (!existsSync(file)) return { passed: 0, failed: 0 };
  const results = JSON.parse(readFileSync(file, 'utf8'));
  return { passed: results.numPassedTests, failed: results.numFailedTests };
}

async function main() {
  const began = Date.now();
  const servers = testServers();
  const totals = { passed: 0, failed: 0 };
  const failures = [];

  section('build');
  if ((await run('npm', ['run', 'build', '--silent'], { cwd: root })) !== 0) {
    console.error('Build failed; no tests were run.');
    return 1;
  }

  section('the previous release (rolling-upgrade tests)');
  // Built once into .cache/ and reused; the rolling-upgrade scenario runs its services.
  try {
    await ensurePreviousRelease();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    failures.push('previous release build');
  }

  section('infrastructure');
  let summary;
  try {
    summary = await up({ databases: ['shortener_test'] });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
  const env = {
    ...process.env,
    DATABASE_URL: servers.databaseUrl,
    REDIS_URL: servers.redisUrl,
    KAFKA_BROKERS: summary.kafka.brokers.join(','),
  };

  /** Runs one suite, adds its counts to the totals, and notes it when it fails. */
  const suite = async (name, args, count, cwd = root) => {
    const resultsFile = path.join(artifacts, `${name}-results.json`);
    const code = await run('npx', [...args, `--outputFile=${resultsFile}`], { cwd, env });
    const counted = count(resultsFile);
    totals.passed += counted.passed;
    totals.failed += counted.failed;
    if (code !== 0) failures.push(name);
  };
  const jestWith = (config) => ['jest', '--ci', '--config', config, '--runInBand', '--json'];

  try {
    section('services, packages and integration (Jest)');
    // Its edge tests run nginx; without it they fail, and say so.
    await ensureNginx();
    // The alert rules' tests run promtool; a fault scenario runs Prometheus.
    await ensurePrometheus();
    await suite('jest', ['jest', '--ci', '--json'], countJest);

    section('frontend (Vitest)');
    await suite(
      'vitest',
      ['vitest', 'run', '--reporter=default', '--reporter=json'],
      countVitest,
      path.join(root, 'frontend'),
    );

    section('browser journeys (Chromium)');
    if (await ensureChromium()) {
      await suite('e2e', jestWith('tests/e2e/jest.config.js'), countJest);
    } else {
      failures.push('e2e (no Chromium)');
    }

    section('faults and hostile input');
    await suite('faults', jestWith('tests/faults/jest.config.js'), countJest);
  } finally {
    if (!keepInfra) {
      section('stopping what the tests started');
      await down({ only: summary }).catch((error) => console.error(String(error)));
    }
  }

  const minutes = ((Date.now() - began) / 60_000).toFixed(1);
  console.log(
    `\nAll suites done in ${minutes} min${failures.length ? `; failed: ${failures.join(', ')}` : ''}`,
  );
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  return failures.length === 0 && totals.failed === 0 ? 0 : 1;
}

process.exitCode = await main();
