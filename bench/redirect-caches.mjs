// Micro-benchmark of the redirect's per-request helpers (a measurement, not a test): the
// resolver's local cache (a hit; an unknown code remembered past the bound, evicting), the
// miss budget (a known client; new clients, evicting) and clientIp (no proxies; a trusted
// proxy with two hops of X-Forwarded-For; an untrusted peer sending the header). Reads the
// service's build; with --compare, a second build of the same three modules (an older one
// compiled aside) is measured in the same process, rounds alternating, so that the noise
// of a shared machine falls on both alike. Pin it to one core:
//
//   npx tsc -b services/redirect
//   taskset -c 0 node bench/redirect-caches.mjs [--rounds 9] [--ops 300000] [--compare DIR]
//
// Prints, per case and build, the best and the median round in ns per operation.
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    ops: { type: 'string', default: '300000' },
    dist: { type: 'string', default: 'services/redirect/dist' },
    compare: { type: 'string' },
  },
});
const ROUNDS = Number(args.rounds);
const OPS = Number(args.ops);

async function load(dir) {
  const base = new URL(`../${dir}/`, import.meta.url);
  return {
    name: dir,
    ...(await import(new URL('link-resolver.js', base))),
    ...(await import(new URL('miss-budget.js', base))),
    // clientIp is the chassis' (a build that has its own client-ip.js is measured with it).
    ...(await import(new URL('client-ip.js', base)).catch(() => import('@shortener/chassis'))),
  };
}

const builds = [await load(args.dist)];
if (args.compare) builds.push(await load(args.compare));

const code = (i) => `c${String(i).padStart(6, '0')}`;
const CODES = Array.from({ length: 200_000 }, (_, i) => code(i));
const ADDRESSES = Array.from(
  { length: 200_000 },
  (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
);
const noLinks = { request: async () => ({ status: 404, body: null }) };
const FAR = Date.now() + 3_600_000;
const HOUR = 3_600_000;

function request(remoteAddress, forwardedFor) {
  return {
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  };
}

/** Per build, the synchronous body of one case (called OPS times a round). */
async function cases(m) {
  const hits = new m.LinkResolver(
    { get: async (c) => ({ url: `https://example.com/${c}`, expiresAt: FAR }) },
    noLinks,
    { ttlMs: HOUR, negativeTtlMs: HOUR, maxEntries: 100_000 },
  );
  for (let i = 0; i < 100_000; i += 1) await hits.resolve(CODES[i]);
  const now = Date.now();

  const budget = new m.MissBudget({ perMinute: 60, burst: 60, maxClients: 100_000 });
  for (let i = 0; i < 100_000; i += 1) budget.for(ADDRESSES[i]).take();

  const none = m.trustedProxies([]);
  const proxies = m.trustedProxies(['10.0.0.0/8', '::1']);
  const direct = request('203.0.113.9');
  const proxied = request('::ffff:10.0.0.1', '198.51.100.7, 10.0.0.2');
  const stranger = request('198.51.100.20', '1.2.3.4');

  let sink = 0;
  return {
    'resolver.peek (hit)': (i) => {
      if (hits.peek(CODES[i % 10_000], now)) sink += 1;
    },
    'missBudget take+refund (known client)': (i) => {
      const allowance = budget.for(ADDRESSES[i % 10_000]);
      if (allowance.take()) allowance.refund();
    },
    'missBudget take (new clients, evicting)': (i) => {
      budget.for(ADDRESSES[100_000 + (i % 100_000)]).take();
    },
    'clientIp (no proxies)': () => (sink += m.clientIp(direct, none).length),
    'clientIp (trusted proxy, 2 hops)': () => (sink += m.clientIp(proxied, proxies).length),
    'clientIp (untrusted peer with a header)': () => (sink += m.clientIp(stranger, proxies).length),
    /** Asynchronous: measured apart, in batches. */
    async missesEvicting() {
      const resolver = new m.LinkResolver({ get: async () => null }, noLinks, {
        ttlMs: HOUR,
        negativeTtlMs: HOUR,
        maxEntries: 100_000,
      });
      let n = 0;
      const start = process.hrtime.bigint();
      while (n < 200_000) {
        const batch = [];
        for (let i = 0; i < 10_000; i += 1) batch.push(resolver.resolve(CODES[n++]));
        await Promise.all(batch);
      }
      return Number(process.hrtime.bigint() - start) / n;
    },
    get sink() {
      return sink;
    },
  };
}

const perBuild = [];
for (const build of builds) perBuild.push(await cases(build));
const names = Object.keys(perBuild[0]).filter((name) => typeof perBuild[0][name] === 'function');
const samples = perBuild.map(() => ({}));

for (let round = -1; round < ROUNDS; round += 1) {
  for (const [b, set] of perBuild.entries()) {
    for (const name of names) {
      let ns;
      if (name === 'missesEvicting') ns = await set[name]();
      else {
        const body = set[name];
        const start = process.hrtime.bigint();
        for (let i = 0; i < OPS; i += 1) body(i);
        ns = Number(process.hrtime.bigint() - start) / OPS;
      }
      if (round >= 0) (samples[b][name] ??= []).push(ns);
    }
  }
}

const label = (name) =>
  name === 'missesEvicting' ? 'resolver.resolve (unknown code, evicting)' : name;
for (const name of names) {
  for (const [b, build] of builds.entries()) {
    const sorted = samples[b][name].sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(
      `${label(name).padEnd(44)} ${build.name.padEnd(26)} best ${sorted[0].toFixed(1).padStart(8)} ns/op  median ${median.toFixed(1).padStart(8)}`,
    );
  }
}
if (perBuild.some((set) => set.sink < 0)) console.log('unreachable');
