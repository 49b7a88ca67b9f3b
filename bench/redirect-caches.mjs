// Micro-benchmark of the redirect's per-request helpers (a measurement, not a test): the
// resolver's local cache (a hit, and a remembered miss that evicts), the miss budget (a
// known client, and a stream of new clients that evicts) and clientIp (no proxies; a
// trusted proxy with two hops of X-Forwarded-For). Reads the services' builds, so compare
// two checkouts by running it in each after `npx tsc -b`. Pin it to one core:
//
//   taskset -c 0 node bench/redirect-caches.mjs [--rounds 7] [--ops 300000]
//
// Prints, per case, the median and the best of the rounds in ns per operation.
import { parseArgs } from 'node:util';
import { LinkResolver } from '../services/redirect/dist/link-resolver.js';
import { MissBudget } from '../services/redirect/dist/miss-budget.js';
import { clientIp, trustedProxies } from '../services/redirect/dist/client-ip.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    ops: { type: 'string', default: '300000' },
  },
});
const ROUNDS = Number(args.rounds);
const OPS = Number(args.ops);

/** ns/op of `body(i)` run OPS times, per round (after one warm-up round). */
function measure(name, body) {
  const samples = [];
  for (let round = -1; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < OPS; i += 1) body(i);
    const ns = Number(process.hrtime.bigint() - start) / OPS;
    if (round >= 0) samples.push(ns);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)];
  console.log(
    `${name.padEnd(44)} median ${median.toFixed(1).padStart(7)} ns/op   best ${samples[0].toFixed(1).padStart(7)}`,
  );
}

const code = (i) => `c${String(i).padStart(6, '0')}`;
const noLinks = {
  request: async () => ({ status: 404, body: null }),
};
const FAR = Date.now() + 3_600_000;

// The resolver: 100,000 entries (the default bound), hits over 10,000 hot codes.
{
  const cache = {
    get: async (c) => ({ url: `https://example.com/${c}`, expiresAt: FAR }),
  };
  const resolver = new LinkResolver(cache, noLinks, {
    ttlMs: 3_600_000,
    negativeTtlMs: 3_600_000,
    maxEntries: 100_000,
  });
  const filled = [];
  for (let i = 0; i < 100_000; i += 1) filled.push(resolver.resolve(code(i)));
  await Promise.all(filled);
  const now = Date.now();
  let sink = 0;
  measure('resolver.peek (hit)', (i) => {
    if (resolver.peek(code(i % 10_000), now)) sink += 1;
  });
  // A remembered miss past the bound: each one evicts an entry. resolve() is async, so
  // this measures the whole lookup of an unknown code from memory stores, not only the map.
  const misses = new LinkResolver({ get: async () => null }, noLinks, {
    ttlMs: 3_600_000,
    negativeTtlMs: 3_600_000,
    maxEntries: 100_000,
  });
  const batch = 10_000;
  const start = process.hrtime.bigint();
  let n = 0;
  for (let round = 0; round < 30; round += 1) {
    const pending = [];
    for (let i = 0; i < batch; i += 1) pending.push(misses.resolve(code(n++)));
    await Promise.all(pending);
  }
  const ns = Number(process.hrtime.bigint() - start) / n;
  console.log(
    `${'resolver.resolve (unknown code, evicting)'.padEnd(44)} mean   ${ns.toFixed(1).padStart(7)} ns/op`,
  );
  if (sink < 0) console.log(sink);
}

// The miss budget: 100,000 clients remembered, take+refund of a known client, and new ones.
{
  const budget = new MissBudget({ perMinute: 60, burst: 60, maxClients: 100_000 });
  const addresses = [];
  for (let i = 0; i < 200_000; i += 1) {
    addresses.push(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  }
  for (let i = 0; i < 100_000; i += 1) budget.for(addresses[i]).take();
  measure('missBudget take+refund (known client)', (i) => {
    const allowance = budget.for(addresses[i % 10_000]);
    if (allowance.take()) allowance.refund();
  });
  measure('missBudget take (new clients, evicting)', (i) => {
    budget.for(addresses[100_000 + (i % 100_000)]).take();
  });
}

// clientIp: a plain visitor with no proxies configured; one behind a trusted proxy.
{
  const none = trustedProxies([]);
  const direct = { socket: { remoteAddress: '203.0.113.9' }, headers: {} };
  measure('clientIp (no proxies)', () => clientIp(direct, none));
  const proxies = trustedProxies(['10.0.0.0/8', '::1']);
  const proxied = {
    socket: { remoteAddress: '::ffff:10.0.0.1' },
    headers: { 'x-forwarded-for': '198.51.100.7, 10.0.0.2' },
  };
  measure('clientIp (trusted proxy, 2 hops)', () => clientIp(proxied, proxies));
  const stranger = {
    socket: { remoteAddress: '198.51.100.20' },
    headers: { 'x-forwarded-for': '1.2.3.4' },
  };
  measure('clientIp (untrusted peer with a header)', () => clientIp(stranger, proxies));
}
