// `npm test`: every test, on a fresh machine. Builds, brings up PostgreSQL, Redis and Kafka
// (starting only what is not running), runs the suites against them on their own test
// database and Redis index, then stops only what it started. Exits non-zero on any failure.
//
//   npm test                   everything
//   npm test -- --keep-infra   leave what it started running (faster reruns)
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { down, up } from '../infra/infra.mjs';
import { run } from './lib/processes.mjs';

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
 * The browser journeys drive Debian's Chromium; test tools never download a browser of
 * their own. Installed here when missing and we may (root with apt), else we say how.
 */
async function ensureChromium() {
  if (existsSync(CHROMIUM)) return true;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `Chromium is not at ${CHROMIUM}: install it (Debian: sudo apt-get install chromium) or set CHROMIUM_PATH.`,
    );
    return false;
  }
  console.log('Installing Chromium from Debian (once, about a minute)...');
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if ((await run('apt-get', ['update', '-qq'], { env: aptEnv })) !== 0) return false;
  await run('apt-get', ['install', '-y', '-qq', 'chromium'], { env: aptEnv });
  return existsSync(CHROMIUM);
}

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

  try {
    section('services, packages and integration (Jest)');
    const jestFile = path.join(artifacts, 'jest-results.json');
    const jestCode = await run('npx', ['jest', '--ci', '--json', `--outputFile=${jestFile}`], {
      cwd: root,
      env,
    });
    const jest = countJest(jestFile);
    totals.passed += jest.passed;
    totals.failed += jest.failed;
    if (jestCode !== 0) failures.push('jest');

    if (existsSync(path.join(root, 'frontend', 'vite.config.ts'))) {
      section('frontend (Vitest)');
      const vitestFile = path.join(artifacts, 'vitest-results.json');
      const vitestCode = await run(
        'npx',
        ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${vitestFile}`],
        { cwd: path.join(root, 'frontend'), env },
      );
      const vitest = countVitest(vitestFile);
      totals.passed += vitest.passed;
      totals.failed += vitest.failed;
      if (vitestCode !== 0) failures.push('vitest');
    }

    if (existsSync(path.join(root, 'tests', 'e2e', 'jest.config.js'))) {
      section('browser journeys (Chromium)');
      if (!(await ensureChromium())) {
        failures.push('e2e (no Chromium)');
      } else {
        const e2eFile = path.join(artifacts, 'e2e-results.json');
        const e2eCode = await run(
          'npx',
          [
            'jest',
            '--ci',
            '--config',
            'tests/e2e/jest.config.js',
            '--runInBand',
            '--json',
            `--outputFile=${e2eFile}`,
          ],
          { cwd: root, env },
        );
        const e2e = countJest(e2eFile);
        totals.passed += e2e.passed;
        totals.failed += e2e.failed;
        if (e2eCode !== 0) failures.push('e2e');
      }
    }

    section('faults and hostile input');
    const faultsFile = path.join(artifacts, 'faults-results.json');
    const faultsCode = await run(
      'npx',
      [
        'jest',
        '--ci',
        '--config',
        'tests/faults/jest.config.js',
        '--runInBand',
        '--json',
        `--outputFile=${faultsFile}`,
      ],
      { cwd: root, env },
    );
    const faults = countJest(faultsFile);
    totals.passed += faults.passed;
    totals.failed += faults.failed;
    if (faultsCode !== 0) failures.push('faults');
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
