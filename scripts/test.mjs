// `npm test`: every test, on a fresh machine, on the Node.js release .nvmrc pins
// (scripts/image-node.mjs). Brings up what is missing, runs two lanes at once (Jest and the
// browser journeys; the faults, on a broker, database and Redis index they may break, then
// Vitest), then FAULTS_ALONE, and stops only what it started. Non-zero on any failure.
//
//   npm test                   everything
//   npm test -- --keep-infra   leave what it started running (faster reruns)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNginx } from '../infra/edge.mjs';
import { down, up } from '../infra/infra.mjs';
import { run, runLogged } from './lib/processes.mjs';
import { relaunchOnImageNode } from './image-node.mjs';
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
function testServers(databaseName = 'shortener_test', redisIndex = 1) {
  const database = new URL(process.env.DATABASE_URL ?? defaults.DATABASE_URL);
  database.pathname = `/${databaseName}`;
  const redis = new URL(process.env.REDIS_URL ?? defaults.REDIS_URL);
  redis.pathname = `/${redisIndex}`;
  return { databaseUrl: database.toString(), redisUrl: redis.toString() };
}

/** The fault lane's own broker (its controller takes the next port), database and Redis index. */
const FAULTS_KAFKA_PORT = '19092';
const FAULTS_DATABASE = 'shortener_faults';
const FAULTS_REDIS_INDEX = 3;
/**
 * Fault scenarios run once both lanes are done, with the machine to themselves: their latency
 * goals fail on a starved machine whatever the code does (tests/faults/README.md).
 */
const FAULTS_ALONE = [
  'tests/faults/dependency-outages.fault-spec.ts',
  'tests/faults/kafka-broker-killed.fault-spec.ts',
  'tests/faults/alerts-dependencies.fault-spec.ts',
];

/** infra.mjs in a child process, for the fault lane's broker: KAFKA_PORT is read as it loads. */
const faultsInfra = (args, env) =>
  run(process.execPath, [path.join(root, 'infra', 'infra.mjs'), ...args], { cwd: root, env });

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

  section(`build (Node.js ${process.version}, ${process.execPath})`);
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
  // Each lane takes its test servers' ports from its own half of testkit's range (TEST_PORTS):
  // a port one lane found free could otherwise be bound by the other before its server bound it.
  const env = {
    ...process.env,
    DATABASE_URL: servers.databaseUrl,
    REDIS_URL: servers.redisUrl,
    KAFKA_BROKERS: summary.kafka.brokers.join(','),
    TEST_PORTS: '20000-26000',
  };
  // The fault lane: its broker is this checkout's on another port (unless KAFKA_BROKERS names
  // an external cluster, where the scenarios that kill the broker are skipped, and they share it).
  const faultServers = testServers(FAULTS_DATABASE, FAULTS_REDIS_INDEX);
  const faultsEnv = {
    ...process.env,
    DATABASE_URL: faultServers.databaseUrl,
    REDIS_URL: faultServers.redisUrl,
    TEST_PORTS: '26000-32000',
    ...(summary.kafka.external
      ? { KAFKA_BROKERS: summary.kafka.brokers.join(',') }
      : { KAFKA_PORT: FAULTS_KAFKA_PORT, KAFKA_BROKERS: `127.0.0.1:${FAULTS_KAFKA_PORT}` }),
  };
  const infraEnv = { ...faultsEnv };
  if (!summary.kafka.external) delete infraEnv.KAFKA_BROKERS;
  section(`infrastructure of the fault lane (broker ${faultsEnv.KAFKA_BROKERS})`);
  const faultsInfraUp = (await faultsInfra(['up', '--db', FAULTS_DATABASE], infraEnv)) === 0;

  /** Runs one suite, adds its counts to the totals, and notes it when it fails. */
  const suite = async (name, args, count, { cwd = root, suiteEnv = env, log } = {}) => {
    const resultsFile = path.join(artifacts, `${name}-results.json`);
    const argv = [...args, `--outputFile=${resultsFile}`];
    const code = log
      ? await runLogged('npx', argv, log, { cwd, env: suiteEnv })
      : await run('npx', argv, { cwd, env: suiteEnv });
    const counted = count(resultsFile);
    totals.passed += counted.passed;
    totals.failed += counted.failed;
    if (code !== 0) failures.push(name);
  };
  const jestWith = (config) => ['jest', '--ci', '--config', config, '--runInBand', '--json'];

  try {
    // From Debian, one at a time (apt holds a lock), before the lanes start: nginx for the edge's
    // tests, promtool for the alert rules' tests, Prometheus for a fault scenario, Chromium.
    await ensureNginx();
    await ensurePrometheus();
    const chromium = await ensureChromium();

    const faultsLog = path.join(artifacts, 'faults.log');
    const vitestLog = path.join(artifacts, 'vitest.log');
    /** `only`: those scenarios alone; `except`: all others (Jest path patterns). */
    const runFaults = async (log, { name = 'faults', only = [], except = [] } = {}) => {
      if (!faultsInfraUp) {
        failures.push(`${name} (their broker did not start)`);
        return;
      }
      const args = [
        ...jestWith('tests/faults/jest.config.js'),
        ...(except.length > 0 ? ['--testPathIgnorePatterns', ...except] : []),
        ...only,
      ];
      await suite(name, args, countJest, { suiteEnv: faultsEnv, log });
    };
    const runVitest = (log) =>
      suite('vitest', ['vitest', 'run', '--reporter=default', '--reporter=json'], countVitest, {
        cwd: path.join(root, 'frontend'),
        log,
      });
    // The second lane: the faults, then the web app's tests (so each lane takes about as long).
    // On an external cluster both lanes would share one `visits` topic: they take turns.
    const secondLane = summary.kafka.external
      ? null
      : (async () => {
          await runFaults(faultsLog, { except: FAULTS_ALONE });
          await runVitest(vitestLog);
        })();
    if (secondLane) {
      console.log(
        `\nThe fault and hostile-input suites, then the web app's, run beside the others: the ` +
          `faults on ${faultsEnv.KAFKA_BROKERS}, database ${FAULTS_DATABASE} and Redis index ` +
          `${FAULTS_REDIS_INDEX}. Their output goes to ${path.relative(root, faultsLog)} and ` +
          `${path.relative(root, vitestLog)}, and is printed when they end.`,
      );
    }

    section('services, packages and integration (Jest)');
    // Two workers on two cores, beside the other lane: the suites mostly wait (for Kafka
    // groups, timers, processes starting), so Jest's default of one worker (cores - 1) left
    // them at 14 minutes; two took 7 alone.
    await suite('jest', ['jest', '--ci', '--json', '--maxWorkers=2'], countJest);

    section('browser journeys (Chromium)');
    if (chromium) {
      await suite('e2e', jestWith('tests/e2e/jest.config.js'), countJest);
    } else {
      failures.push('e2e (no Chromium)');
    }

    if (secondLane) {
      await secondLane;
      section('faults and hostile input (beside the others; their output)');
      if (existsSync(faultsLog)) process.stdout.write(readFileSync(faultsLog, 'utf8'));
      section('frontend (Vitest; beside the others; its output)');
      if (existsSync(vitestLog)) process.stdout.write(readFileSync(vitestLog, 'utf8'));
      section('the fault scenarios that run alone');
      await runFaults(undefined, { name: 'faults-alone', only: FAULTS_ALONE });
    } else {
      section('frontend (Vitest)');
      await runVitest();
      section('faults and hostile input');
      await runFaults();
    }
  } finally {
    if (!keepInfra) {
      section('stopping what the tests started');
      if (faultsInfraUp) await faultsInfra(['down'], infraEnv);
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

/** The exit code of this script run again on the images' Node.js, or null when it runs on it. */
async function onImageNode() {
  try {
    return await relaunchOnImageNode(fileURLToPath(import.meta.url));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

process.exitCode = (await onImageNode()) ?? (await main());
