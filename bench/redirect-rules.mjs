// Micro-benchmark of what a link's rules and a forwarded query cost the redirect handler, a
// request (a measurement, not a test): the handler of the service's build, its link found in
// memory, answering into a response that keeps nothing; the visit queued into a queue that
// keeps nothing. Cases: a plain link (the prebuilt headers), a plain link with a query (merged
// into the destination's), and a link with every rule the redirect decides synchronously
// (ios, android, geo) for a desktop visitor from the US (the device looked up, then the
// country: the longest way), an iPhone, and the same link with a cap (maxVisits, counted in
// memory as the embedded mode does: a promise a request). A password link's GET (its form)
// is measured too; its POST costs an scrypt (about 50 ms of CPU, off the event loop) by design.
// Prints, per case, the best and the median round in ns per request and the extra over the
// plain link. Pin it to one core:
//
//   npx tsc -b services/redirect
//   taskset -c 0 node bench/redirect-rules.mjs [--rounds 9] [--ops 200000]
import { parseArgs } from 'node:util';
import { MemoryLinkCounters } from '../packages/link-cache/dist/index.js';
import { destination, liveRules, visitorLookups } from '../services/redirect/dist/link-rules.js';
import { createRedirectHandler } from '../services/redirect/dist/redirect-handler.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    ops: { type: 'string', default: '200000' },
  },
});
const ROUNDS = Number(args.rounds);
const OPS = Number(args.ops);

const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const FAR = Date.now() + 3_600_000;

function live(url, rules) {
  const link = { ...destination(url), expiresAt: FAR };
  const built = liveRules(rules);
  if (typeof built === 'string') throw new Error(built);
  return built === undefined ? link : { ...link, rules: built };
}

const RULES = {
  ios: 'https://apps.example.com/ios',
  android: 'https://apps.example.com/android',
  geo: { GB: 'https://example.co.uk/', DE: 'https://example.de/', US: 'https://example.us/' },
};
const links = new Map([
  ['Plain01', live('https://example.com/landing?ref=a')],
  ['Ruled01', live('https://example.com/landing', RULES)],
  [
    'Capped1',
    live('https://example.com/landing', { ...RULES, maxVisits: Number.MAX_SAFE_INTEGER }),
  ],
  ['Secret1', live('https://example.com/landing', { passwordHash: 'scrypt$16384$8$1$x$y' })],
]);

let sink = 0;
const noop = () => undefined;
const handle = createRedirectHandler({
  resolver: { peek: (code) => links.get(code), resolve: () => Promise.resolve(null) },
  misses: { for: () => ({ take: () => true, refund: noop }), retryAfterSeconds: () => 1 },
  queue: { spooling: false, push: () => (sink += 1), spoolNow: noop },
  clientIp: () => '8.8.8.8',
  count: noop,
  timer: { answered: noop, refused: noop },
  onError: (error) => {
    throw error;
  },
  counters: new MemoryLinkCounters(),
  lookups: visitorLookups(),
  passwordTries: { limit: 10, windowMs: 60_000 },
});
const res = { writeHead: (status) => (sink += status), end: noop };
const request = (userAgent) => ({
  method: 'GET',
  headers: { 'user-agent': userAgent, referer: undefined },
  socket: { remoteAddress: '8.8.8.8' },
});
const desktop = request(DESKTOP);
const iphone = request(IPHONE);

const cases = {
  'plain link': () => handle(desktop, res, 'Plain01', 0),
  'plain link, a query forwarded': () => handle(desktop, res, 'Plain01', 0, 'utm_source=x&b=2'),
  'ios+android+geo, desktop from US': () => handle(desktop, res, 'Ruled01', 0),
  'ios+android+geo, iPhone': () => handle(iphone, res, 'Ruled01', 0),
  'every rule but a password (cap in memory)': () => handle(desktop, res, 'Capped1', 0),
  "a password link's form (GET)": () => handle(desktop, res, 'Secret1', 0),
};
/** The cap's answer waits for a promise: let each batch settle before the clock stops. */
const ASYNC = new Set([
  'every rule but a password (cap in memory)',
  "a password link's form (GET)",
]);

const samples = {};
for (let round = -1; round < ROUNDS; round += 1) {
  for (const [name, body] of Object.entries(cases)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < OPS; i += 1) {
      body();
      if (ASYNC.has(name) && i % 1000 === 999) await new Promise(setImmediate);
    }
    if (ASYNC.has(name)) await new Promise(setImmediate);
    const ns = Number(process.hrtime.bigint() - start) / OPS;
    if (round >= 0) (samples[name] ??= []).push(ns);
  }
}

const stats = (name) => {
  const sorted = samples[name].sort((x, y) => x - y);
  return { best: sorted[0], median: sorted[Math.floor(sorted.length / 2)] };
};
const plain = stats('plain link');
for (const name of Object.keys(cases)) {
  const { best, median } = stats(name);
  console.log(
    `${name.padEnd(44)} best ${best.toFixed(0).padStart(6)} ns  median ${median.toFixed(0).padStart(6)} ns  extra (medians) ${(median - plain.median).toFixed(0).padStart(6)} ns`,
  );
}
if (sink < 0) console.log('unreachable');
