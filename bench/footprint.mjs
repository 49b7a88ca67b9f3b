// Footprint benchmark (a measurement, not a test): what one link costs Redis and what one
// visit costs Kafka, the two storage figures of docs/capacity.md.
//   1. Redis memory per million links: a Redis of its own (redis-server on a free port, no
//      persistence, so nothing else's keys count), used_memory before and after writing
//      --links entries exactly as the links service writes them (`link:{code}`, the signed
//      value of packages/link-cache, an expiry), scaled to a million;
//   2. Kafka bytes per visit: the real redirect service under --visits requests with a
//      browser's headers (a User-Agent, a Referer, a client address), its visits packed and
//      published as in production; the growth of the visits topic's log segments on disk
//      (this checkout's local broker, .infra/kafka/data; replication factor 1, so a cluster
//      with 3 replicas stores three times this), divided by the visits published.
//
//   npm run build && npm run infra:up -- --db shortener_test
//   node bench/footprint.mjs [--links 1000000] [--url-length 80] [--visits 100000] [--only redis|kafka]
// Part 2 needs the local broker infra runs (KAFKA_PORT moves it) and no other producer on it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { InternalClient } from '../packages/chassis/dist/index.js';
import { encodeLink, LEASE_MS, linkCacheKey, linkKey } from '../packages/link-cache/dist/index.js';
import { freePort, startStack, waitFor } from '../packages/testkit/dist/index.js';
import { paths } from '../infra/lib/paths.mjs';
import { createLink, whenReady } from './stack.mjs';

const { values: args } = parseArgs({
  options: {
    links: { type: 'string', default: '1000000' },
    'url-length': { type: 'string', default: '80' },
    visits: { type: 'string', default: '100000' },
    only: { type: 'string' },
  },
});
if (args.only !== undefined && !['redis', 'kafka'].includes(args.only)) {
  throw new Error(`--only redis or --only kafka, not ${args.only}`);
}
const LINKS = Number(args.links);
const URL_LENGTH = Number(args['url-length']);
const VISITS = Number(args.visits);
const CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const randomCode = () =>
  Array.from({ length: 7 }, () => CODE_ALPHABET[Math.floor(Math.random() * 62)]).join('');
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function usedMemory(redis) {
  const info = await redis.info('memory');
  const field = (name) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)[1]);
  return { used: field('used_memory'), rss: field('used_memory_rss') };
}

async function redisPerMillionLinks() {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  // Refused until the server listens: waited for below.
  redis.on('error', () => undefined);
  try {
    await waitFor(
      async () => {
        await redis.connect().catch(() => undefined);
        return (await redis.ping()) === 'PONG';
      },
      { what: 'redis-server', timeoutMs: 10_000, intervalMs: 100 },
    );
    const before = await usedMemory(redis);
    const key = linkCacheKey(randomBytes(32).toString('base64url'));
    // Links expire within the year; a link's expiry rides in its value and as the key's PXAT.
    const now = Date.now();
    const pathLength = Math.max(1, URL_LENGTH - 'https://example.com/'.length);
    const began = Date.now();
    for (let done = 0; done < LINKS; done += 10_000) {
      const batch = redis.pipeline();
      for (let i = done; i < Math.min(LINKS, done + 10_000); i += 1) {
        const code = randomCode();
        const expiresAt = now + 86_400_000 * (1 + (i % 365));
        const url = `https://example.com/${randomBytes(pathLength).toString('base64url').slice(0, pathLength)}`;
        const entry = encodeLink(key, code, { url, expiresAt, version: now }, now + LEASE_MS);
        batch.set(linkKey(code), entry, 'PXAT', expiresAt);
      }
      await batch.exec();
    }
    const after = await usedMemory(redis);
    const keys = await redis.dbsize();
    const perLink = (after.used - before.used) / keys;
    console.log(
      `Redis: ${keys.toLocaleString('en')} links (URLs of ${URL_LENGTH} characters) in ` +
        `${((Date.now() - began) / 1000).toFixed(1)} s: used_memory +${mb(after.used - before.used)} ` +
        `(${perLink.toFixed(0)} bytes a link), rss ${mb(after.rss)}; ` +
        `per million links: ${mb(perLink * 1_000_000)}`,
    );
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

/** Bytes of the visits topic's log segments on this checkout's broker. */
function visitsLogBytes() {
  let total = 0;
  const folders = readdirSync(paths.kafkaData).filter((name) => /^visits-\d+$/.test(name));
  if (folders.length === 0) {
    throw new Error(`no visits partitions in ${paths.kafkaData}: is this checkout's broker used?`);
  }
  for (const folder of folders) {
    for (const file of readdirSync(path.join(paths.kafkaData, folder))) {
      if (file.endsWith('.log')) total += statSync(path.join(paths.kafkaData, folder, file)).size;
    }
  }
  return total;
}

async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

async function kafkaBytesPerVisit() {
  const stack = await startStack({ services: ['links', 'redirect'] });
  try {
    await whenReady(stack, ['links', 'redirect']);
    const links = new InternalClient('links', stack.get('links').url, stack.secret);
    const codes = [];
    for (let i = 0; i < 100; i += 1) {
      codes.push(await createLink(links, `https://example.com/footprint/${i}/${randomCode()}`));
    }
    const redirect = stack.get('redirect').url;
    const published = () => metric(redirect, 'visit_events_published_total');
    const queued = () => metric(redirect, 'visit_queue_depth');
    // Settled: nothing queued, and the acknowledged count unchanged over half a second.
    let last = -1;
    const settle = () =>
      waitFor(
        async () => {
          const now = await published();
          const still = now === last && (await queued()) === 0;
          last = now;
          return still;
        },
        { what: 'every visit published', timeoutMs: 60_000, intervalMs: 500 },
      );
    await settle();
    const bytesBefore = visitsLogBytes();
    const publishedBefore = await published();
    const result = await autocannon({
      url: redirect,
      connections: 20,
      amount: VISITS,
      // A browser's: what a visit carries (its client address through the trusted proxy).
      requests: codes.map((code, i) => ({
        method: 'GET',
        path: `/r/${code}`,
        headers: {
          'user-agent': `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${120 + (i % 10)}.0.0.0 Safari/537.36`,
          referer: `https://news.example.org/articles/${i}`,
          'x-forwarded-for': `203.0.${i % 256}.${(i * 7) % 256}`,
        },
      })),
    });
    await settle();
    const visits = (await published()) - publishedBefore;
    const bytes = visitsLogBytes() - bytesBefore;
    console.log(
      `Kafka: ${result['3xx'].toLocaleString('en')} redirects, ${visits.toLocaleString('en')} visits ` +
        `published, visits topic +${mb(bytes)} on disk: ${(bytes / visits).toFixed(0)} bytes a ` +
        `visit (one replica; the batch headers and packing included)`,
    );
  } finally {
    await stack.stop();
  }
}

if (args.only !== 'kafka') await redisPerMillionLinks();
if (args.only !== 'redis') await kafkaBytesPerVisit();
