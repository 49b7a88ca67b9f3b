// Redirect benchmark (a measurement, not a test). It prints first the pinned comparison
// (bench/pinned.mjs: the redirect service and a bare server each alone on core 0, wrk on
// core 1; needs wrk and taskset), then, the whole box unpinned, in one run it loads
//   (a) a bare node:http server answering a fixed 302, and
//   (b) the real redirect service, with Redis lookups and Kafka publishing on, while the
//       analytics consumer writes the visits to PostgreSQL on the same two cores, and
//   (c) the same, with the analytics consumer paused (SIGSTOP) for the run and catching up
//       afterwards: the redirect tier as deployed, where consumers run elsewhere,
//   (d) the public origin as `npm run stack` serves it: nginx as the edge (infra/edge.mjs,
//       /r/ straight to the redirect service on its Unix socket, as the Kubernetes Ingress
//       routes), and
//   (e) the public origin with the gateway as the edge (`npm run stack --no-edge`, or no
//       nginx installed: then this run is d),
// over the same hot codes with the same autocannon settings; a and d alternate, twice each,
// and the ratios are to the best a (d's of the best d), as in the pinned comparison: the bare
// server's own rate moves by a quarter from run to run on this machine. Prints requests/s,
// p50 and p99 for each run, the ratios, and the CPU time every process took during each run.
// Then it checks that the visits stored by the analytics consumer equal the redirects
// served, and prints both.
//
//   npm run build && npm run infra:up -- --db shortener_test
//   node bench/redirect.mjs [--seconds 15] [--connections 50] [--codes 100]
//                           [--redirect-env '{"NODE_OPTIONS": "..."}']  (to compare settings)
//                           [--service-env '{"gateway": {"NODE_OPTIONS": "..."}}']  (any service)
//                           [--only pinned]  (the pinned comparison alone)
//                           [--only ad]  (only a, d and e: no pinned comparison, no b or c)
//                           [--no-spool]  (the redirect without its visit spool, to compare)
// The redirect runs with a visit spool (VISIT_SPOOL_DIR, in a folder of its own), as deployed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { InternalClient } from '../packages/chassis/dist/index.js';
import { internalApi } from '../packages/contracts/dist/index.js';
import { findNginx, socketFolder, startEdge } from '../infra/edge.mjs';
import { pinnedComparison } from './pinned.mjs';
import { cpuMeter, rssPeak, stackGroups } from './proc.mjs';
import { createLink, whenReady } from './stack.mjs';
import { freePort, startStack, waitFor } from '../packages/testkit/dist/index.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    connections: { type: 'string', default: '50' },
    codes: { type: 'string', default: '100' },
    'redirect-env': { type: 'string', default: '{}' },
    'service-env': { type: 'string', default: '{}' },
    /** `pinned`: the pinned comparison only; `ad`: runs a, d and e only. */
    only: { type: 'string' },
    'no-spool': { type: 'boolean', default: false },
  },
});
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const codeCount = Number(args.codes);
if (args.only !== undefined && args.only !== 'ad' && args.only !== 'pinned') {
  throw new Error(
    `--only takes 'pinned' or 'ad' (the bare server and the public origin), not ${args.only}`,
  );
}
const serviceEnv = JSON.parse(args['service-env']);
/** Only a, d and e: the public origin against the bare server, quicker to repeat. */
const onlyAD = args.only === 'ad';
/** Rounds of a and d, alternating. */
const ROUNDS = 2;

function load(url, paths, duration) {
  return autocannon({
    url,
    connections,
    duration,
    requests: paths.map((p) => ({ method: 'GET', path: p })),
    headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) bench' },
  });
}

function summary(name, result) {
  return {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    served: result['3xx'],
    errors: result.errors + result.timeouts + result['5xx'],
  };
}

async function redirectsServed(url) {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  return Number(/redirects_total\{outcome="redirected"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? 0);
}

async function bareServer() {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('node:http').createServer((req, res) => {
         res.writeHead(302, { location: 'https://example.com/', 'cache-control': 'private, no-store' });
         res.end();
       }).listen(${port}, '127.0.0.1', () => console.log('ready'));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await once(child.stdout, 'data');
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

/** CPU seconds and microseconds per redirect served, per process group. */
function cpuTable(cpu, served) {
  return Object.fromEntries(
    Object.entries(cpu).map(([name, s]) => [
      name,
      { 'cpu s': Number(s.toFixed(2)), 'µs/redirect': Math.round((s * 1e6) / Math.max(served, 1)) },
    ]),
  );
}

/** Loads `url` while counting the CPU time of `pids` and the usual servers. */
async function measured(name, url, paths, pids) {
  const meter = cpuMeter(stackGroups(pids));
  const memory = rssPeak(pids['server under test']);
  const result = summary(name, await load(url, paths, seconds));
  return { result: { ...result, 'peak MB': Math.round(memory()) }, cpu: meter() };
}

async function main() {
  console.log(
    `redirect benchmark: ${seconds}s per run, ${connections} connections, ${codeCount} hot codes`,
  );
  // The edge reaches the redirect service on its Unix socket, as in npm run stack.
  const nginx = findNginx();
  const socket = nginx === null ? null : socketFolder();
  const spool = args['no-spool'] ? null : mkdtempSync(path.join(tmpdir(), 'bench-visit-spool-'));
  console.log(spool ? `visit spool: ${spool}` : 'no visit spool (--no-spool)');
  const stack = await startStack({
    // The gateway (and auth, which it needs) for the public origin's figure.
    services: ['analytics', 'links', 'auth', 'redirect', 'gateway'],
    env: { LOG_LEVEL: 'warn' },
    serviceEnv: {
      ...serviceEnv,
      redirect: {
        ...(socket ? { UNIX_SOCKET: socket.redirect } : {}),
        ...(spool ? { VISIT_SPOOL_DIR: spool } : {}),
        ...serviceEnv.redirect,
        ...JSON.parse(args['redirect-env']),
      },
    },
  }).catch((error) => {
    // A service that would not start (a bad --redirect-env, say) leaves no folder behind.
    socket?.remove();
    if (spool) rmSync(spool, { recursive: true, force: true });
    throw error;
  });
  const codes = [];
  try {
    await whenReady(stack, ['links', 'analytics', 'redirect', 'gateway']);
    const links = new InternalClient('links', stack.get('links').url, stack.secret);
    const analytics = new InternalClient('analytics', stack.get('analytics').url, stack.secret);
    for (let i = 0; i < codeCount; i += 1) {
      codes.push(await createLink(links, `https://example.com/bench/${i}`));
    }
    const paths = codes.map((code) => `/r/${code}`);
    const redirect = stack.get('redirect');
    const consumer = stack.get('analytics').child;
    const countVisits = async () => {
      const response = await analytics.request('POST', '/internal/visit-counts', {
        body: { codes },
      });
      if (response.status !== 200) {
        throw new Error(
          `visit-counts answered ${response.status}: ${JSON.stringify(response.body)}`,
        );
      }
      return Object.values(response.body.counts).reduce((sum, n) => sum + n, 0);
    };

    // First, the pinned comparison (wrk from Debian; taskset).
    await load(redirect.url, paths, 2); // warm-up
    if (!onlyAD)
      await pinnedComparison({
        redirect,
        consumer,
        paths,
        served: () => redirectsServed(redirect.url),
        stored: countVisits,
      });
    if (args.only === 'pinned') return;

    console.log('\nwhole box (nothing pinned, autocannon):');
    const bare = await bareServer();
    await load(bare.url, paths, 2); // warm-up

    // Warm-up without counting: its visits are stored too, so count from after it settles.
    await load(redirect.url, paths, 2);
    // Settled when every redirect served so far (warm-up included) is a stored visit.
    await waitFor(async () => (await countVisits()) === (await redirectsServed(redirect.url)), {
      intervalMs: 500,
      timeoutMs: 120_000,
      what: 'warm-up visits stored',
    });
    const before = await countVisits();
    const servedBefore = await redirectsServed(redirect.url);
    const pids = {
      'server under test': redirect.child.pid,
      analytics: consumer.pid,
      links: stack.get('links').child.pid,
    };
    // The server's own count: autocannon leaves out answers still in flight when it stops.
    const servedSince = async (from) => {
      await waitFor(
        async () => (await redirectsServed(redirect.url)) === (await redirectsServed(redirect.url)),
        { intervalMs: 200 },
      );
      return (await redirectsServed(redirect.url)) - from;
    };
    /** One run, with the redirects the service counted over it (settled before and after). */
    const counted = async (name, url, groups) => {
      const from = await servedSince(0);
      const run = await measured(name, url, paths, groups);
      run.result.served = await servedSince(from);
      return run;
    };
    let b;
    if (!onlyAD) b = await counted('b: redirect, analytics on', redirect.url, pids);

    // The public origin on one machine, as npm run stack's :8080 is: nginx as the edge (/r/
    // straight to the redirect service, on its Unix socket) when there is one, and the gateway
    // as the edge (npm run stack --no-edge) beside it; analytics on as in b, before c leaves
    // it a backlog.
    const edge =
      nginx === null
        ? null
        : await startEdge({
            port: await freePort(),
            redirect: `unix:${socket.redirect}`,
            gateway: new URL(stack.url).host,
            nginx,
          });
    const publicPids = {
      ...pids,
      gateway: stack.get('gateway').child.pid,
      edge: (p) => p.comm === 'nginx',
    };
    if (edge === null) {
      console.log('no nginx here (Debian: apt-get install nginx): d is through the gateway');
    }
    // a and d alternate, ROUNDS of each, and the ratio is of the best of each, as in the
    // pinned comparison: the bare server's own rate moves by a quarter between runs here.
    const aRuns = [];
    const dRuns = [];
    try {
      if (edge !== null) await load(edge.url, paths, 2); // warm-up: nginx's connections
      for (let round = 1; round <= ROUNDS; round += 1) {
        aRuns.push(
          await measured(`a${round}: bare node:http 302`, bare.url, paths, {
            'server under test': bare.pid,
          }),
        );
        dRuns.push(
          edge === null
            ? await counted(`d${round}: public origin (gateway as edge)`, stack.url, publicPids)
            : await counted(`d${round}: public origin (nginx edge)`, edge.url, publicPids),
        );
      }
    } finally {
      bare.stop();
      await edge?.stop();
    }
    const e =
      edge === null
        ? undefined
        : await counted('e: public origin (gateway as edge)', stack.url, publicPids);

    let c;
    if (!onlyAD) {
      consumer.kill('SIGSTOP');
      try {
        c = await counted('c: redirect, analytics paused', redirect.url, pids);
      } finally {
        consumer.kill('SIGCONT');
      }
    }

    const best = (runs) => runs.reduce((top, run) => (run.result.rps > top.result.rps ? run : top));
    const a = best(aRuns);
    const d = best(dRuns);
    const runs = [
      ...aRuns.flatMap((run, i) => [run, dRuns[i]]),
      ...[b, e, c].filter((run) => run !== undefined),
    ];
    console.log('(analytics on in every run but c)');
    console.table(runs.map((run) => run.result));
    const ratio = (run) => (run.result.rps / a.result.rps).toFixed(2);
    if (b) console.log(`ratio b/a (requests/s): ${ratio(b)}`);
    if (c) console.log(`ratio c/a (requests/s): ${ratio(c)}`);
    console.log(
      `ratio d/a (requests/s, best of ${ROUNDS} each): ${ratio(d)} (public origin; goal >= 0.6); ` +
        `round by round: ${aRuns.map((run, i) => (dRuns[i].result.rps / run.result.rps).toFixed(2)).join(', ')}`,
    );
    if (e) console.log(`ratio e/a (requests/s): ${ratio(e)} (the gateway as the edge)`);
    // Where the two cores went: the ratio is as much about who shares them as about the code.
    for (const { result, cpu } of runs) {
      console.log(
        `CPU during ${result.name} (${seconds} s, ${2 * seconds} core-seconds on two cores):`,
      );
      console.table(cpuTable(cpu, result.served));
    }

    // Every redirect since the count began, the edge's warm-up included, must be a visit.
    const served = await servedSince(servedBefore);
    const began = Date.now();
    let stored = 0;
    try {
      await waitFor(
        async () => {
          stored = (await countVisits()) - before;
          return stored >= served;
        },
        { intervalMs: 250, timeoutMs: 180_000, what: 'visits stored' },
      );
    } catch {
      // fall through to print what was stored
    }
    const metrics = await (await fetch(`${redirect.url}/metrics`)).text();
    const dropped = /visit_events_dropped_total\{[^}]*\} (\d+)/.exec(metrics)?.[1] ?? '?';
    console.log(`redirects served (every run but a's, with warm-ups): ${served}`);
    console.log(
      `visits stored:            ${stored} (all stored ${((Date.now() - began) / 1000).toFixed(1)} s after the load ended; dropped by the queue: ${dropped})`,
    );
    if (stored !== served) process.exitCode = 1;
  } finally {
    // The run's visits go (millions a run): left behind, they slow every later ingest in this
    // database, whose autovacuum is off here (bench/stats.mjs's figures drifted that way).
    if (codes.length > 0) {
      const analytics = new InternalClient(
        'analytics',
        stack.get('analytics').url,
        stack.secret,
        600_000,
      );
      const began = Date.now();
      await analytics
        .call(internalApi.deleteVisits, { body: { codes } })
        .then(() =>
          console.log(`the run's visits deleted in ${((Date.now() - began) / 1000).toFixed(1)} s`),
        )
        .catch((error) => console.log(`the run's visits were not deleted: ${error}`));
    }
    await stack.stop();
    socket?.remove();
    if (spool) rmSync(spool, { recursive: true, force: true });
  }
}

await main();
