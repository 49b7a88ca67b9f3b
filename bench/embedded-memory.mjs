// The embedded mode's footprint (a measurement, not a test): `npm start` as a newcomer runs
// it, from its build, on free ports with a fresh data folder and nothing configured (no
// DATABASE_URL, REDIS_URL, KAFKA_BROKERS, Google). Prints:
//   1. the start-up time and the idle resident memory once start-up has settled (and the
//      process's own figures from its /metrics: JS heap, external memory);
//   2. a load through the public port, one call at a time: shorten N links (signed in),
//      M redirects spread over them, then K stats reads (GET /api/stats/:code) once every
//      visit is counted: p50, p95 and max of each journey;
//   3. the resident memory right after the load (and its peak during it), and again once
//      it has settled.
// A second start on the same folder (an existing database, as on every start but the first)
// prints its idle figure too. Nothing is pinned; on a shared machine the timings move with
// its load (printed beside them).
//
//   npm run build
//   node bench/embedded-memory.mjs [--links 200] [--redirects 2000] [--stats 200]
//                                  [--settle 15] [--entry <another build's main.js>]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { rssMb, rssPeak } from './proc.mjs';

const { values: args } = parseArgs({
  options: {
    links: { type: 'string', default: '200' },
    redirects: { type: 'string', default: '2000' },
    stats: { type: 'string', default: '200' },
    settle: { type: 'string', default: '15' },
    entry: {
      type: 'string',
      default: path.resolve(fileURLToPath(import.meta.url), '../../services/embedded/dist/main.js'),
    },
  },
});
const LINKS = Number(args.links);
const REDIRECTS = Number(args.redirects);
const STATS = Number(args.stats);
const SETTLE_SECONDS = Number(args.settle);
const ENTRY = path.resolve(args.entry);
const XHR = { 'X-Requested-With': 'XMLHttpRequest' };

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The environment of a laptop with nothing configured: no servers, no Google. */
function laptopEnv(extra) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      /^(DATABASE_URL|REDIS_URL|KAFKA_BROKERS|GOOGLE_|INTERNAL_API_SECRET|NODE_ENV|HOST$|LOCAL_SIGN_IN|NODE_OPTIONS)/.test(
        name,
      )
    ) {
      delete env[name];
    }
  }
  return {
    ...env,
    LOG_LEVEL: 'warn',
    SHORTEN_RATE_LIMIT_SIGNED_IN: '100000',
    API_RATE_LIMIT: '1000000',
    ...extra,
  };
}

/** Starts the embedded mode; answers once its start-up line is printed. */
async function startEmbedded(dataDir) {
  const port = await freePort();
  const opsPort = await freePort();
  const started = Date.now();
  const child = spawn(process.execPath, [ENTRY], {
    env: laptopEnv({ PORT: String(port), OPS_PORT: String(opsPort), DATA_DIR: dataDir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  while (!output.includes('is running at')) {
    if (child.exitCode !== null) throw new Error(`the embedded mode exited:\n${output}`);
    if (Date.now() - started > 180_000) throw new Error(`no start within 3 minutes:\n${output}`);
    await sleep(50);
  }
  return {
    child,
    origin: `http://localhost:${port}`,
    ops: `http://127.0.0.1:${opsPort}`,
    startSeconds: (Date.now() - started) / 1000,
  };
}

async function stopEmbedded(app) {
  if (app.child.exitCode === null) {
    app.child.kill('SIGTERM');
    await once(app.child, 'exit');
  }
}

/** The process's own memory figures (prom-client's defaults on the ops port), in MB. */
async function ownFigures(app) {
  try {
    const text = await (await fetch(`${app.ops}/metrics`)).text();
    const value = (name) =>
      Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]) / 1e6;
    return (
      `JS heap used ${value('nodejs_heap_size_used_bytes').toFixed(0)} MB, ` +
      `external ${value('nodejs_external_memory_bytes').toFixed(0)} MB`
    );
  } catch (error) {
    return `(no /metrics: ${error.message})`;
  }
}

/** Waits SETTLE_SECONDS, then answers the resident memory (the last of a few samples). */
async function settledRss(pid) {
  const samples = [];
  for (let waited = 0; waited < SETTLE_SECONDS; waited += 1) {
    await sleep(1000);
    samples.push(rssMb(pid));
  }
  return { rss: samples.at(-1), peak: Math.max(...samples) };
}

async function signIn(origin, name) {
  const response = await fetch(`${origin}/auth/local`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ name, from: '/profile' }).toString(),
  });
  const cookies = response.headers.getSetCookie().map((line) => line.split(';')[0]);
  if (response.status !== 302 || cookies.length === 0) {
    throw new Error(`local sign-in answered ${response.status}: ${await response.text()}`);
  }
  return cookies.join('; ');
}

/** Times `calls` sequential calls of `call(i)`; answers p50, p95 and max in ms. */
async function timed(calls, call) {
  const times = [];
  for (let i = 0; i < calls; i += 1) {
    const begun = process.hrtime.bigint();
    await call(i);
    times.push(Number(process.hrtime.bigint() - begun) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1) };
}

const line = ({ p50, p95, max }) =>
  `p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms`;

async function load(app) {
  const cookie = await signIn(app.origin, 'Bench User');
  const codes = [];
  const shorten = await timed(LINKS, async (i) => {
    const response = await fetch(
      `${app.origin}/api/shorten/?url=${encodeURIComponent(`https://example.com/page/${i}`)}&days=30`,
      { method: 'POST', headers: { ...XHR, cookie } },
    );
    if (!response.ok)
      throw new Error(`shorten answered ${response.status}: ${await response.text()}`);
    codes.push((await response.json()).url);
  });
  const redirect = await timed(REDIRECTS, async (i) => {
    const response = await fetch(`${app.origin}/r/${codes[i % codes.length]}`, {
      redirect: 'manual',
    });
    await response.arrayBuffer();
    if (response.status !== 302) throw new Error(`redirect answered ${response.status}`);
  });
  // Every visit stored before the stats are read (served = stored), checked on the links
  // /api/user lists (its first page): the visits counted against those served to them.
  const served = new Map();
  for (let i = 0; i < REDIRECTS; i += 1) {
    const code = codes[i % codes.length];
    served.set(code, (served.get(code) ?? 0) + 1);
  }
  const counted = async () => {
    const response = await fetch(`${app.origin}/api/user`, { headers: { ...XHR, cookie } });
    const { urls } = await response.json();
    return {
      stored: urls.reduce((sum, link) => sum + link.visitCount, 0),
      served: urls.reduce((sum, link) => sum + (served.get(link.urlID) ?? 0), 0),
      links: urls.length,
    };
  };
  const deadline = Date.now() + 120_000;
  let visits = await counted();
  while (visits.stored < visits.served && Date.now() < deadline) {
    await sleep(200);
    visits = await counted();
  }
  const stats = await timed(STATS, async (i) => {
    const response = await fetch(`${app.origin}/api/stats/${codes[i % codes.length]}?range=all`, {
      headers: { ...XHR, cookie },
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`stats answered ${response.status}`);
  });
  return { shorten, redirect, stats, visits };
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-memory-'));
console.log(`embedded mode from ${ENTRY}`);
console.log(
  `data folder ${dataDir} (fresh); load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
let app;
try {
  app = await startEmbedded(dataDir);
  console.log(`\nfirst start (empty database): running after ${app.startSeconds.toFixed(1)} s`);
  const idle = await settledRss(app.child.pid);
  console.log(
    `  idle RSS after ${SETTLE_SECONDS} s: ${idle.rss.toFixed(0)} MB (peak while settling ${idle.peak.toFixed(0)} MB); ${await ownFigures(app)}`,
  );

  console.log(`\nload: ${LINKS} links shortened, ${REDIRECTS} redirects, ${STATS} stats reads`);
  const peak = rssPeak(app.child.pid, 100);
  const result = await load(app);
  const loadPeak = peak();
  console.log(`  shorten  ${line(result.shorten)}`);
  console.log(`  redirect ${line(result.redirect)}`);
  console.log(`  stats    ${line(result.stats)}`);
  console.log(
    `  visits stored ${result.visits.stored} of ${result.visits.served} served (on the ${result.visits.links} links /api/user lists)`,
  );
  console.log(
    `  RSS after the load: ${rssMb(app.child.pid).toFixed(0)} MB (peak during it ${loadPeak.toFixed(0)} MB); ${await ownFigures(app)}`,
  );
  const after = await settledRss(app.child.pid);
  console.log(`  RSS ${SETTLE_SECONDS} s later: ${after.rss.toFixed(0)} MB`);
  await stopEmbedded(app);

  app = await startEmbedded(dataDir);
  console.log(`\nsecond start (the same folder): running after ${app.startSeconds.toFixed(1)} s`);
  const again = await settledRss(app.child.pid);
  console.log(
    `  idle RSS after ${SETTLE_SECONDS} s: ${again.rss.toFixed(0)} MB; ${await ownFigures(app)}`,
  );
} finally {
  if (app) await stopEmbedded(app);
  rmSync(dataDir, { recursive: true, force: true });
  console.log(
    `\nload average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}
