// The gateway's /r/ forwarder alone (a measurement, not a test): a stand-in redirect service
// (a node:http server answering the redirect service's 302), the gateway's fast path
// (services/gateway/dist/proxy/redirect-fast-path.js, with the gateway's security headers and
// TRUSTED_PROXIES as in the stack) in a server process of its own, and autocannon. Prints
// requests/s, p99 and the CPU time each process spent per request: the gateway's figure is
// what forwarding costs, the upstream's what a bare server costs, without the rest of the
// stack sharing the cores. Give another built module (same exports) to compare. With
// --whole, the gateway is the whole service instead (services/gateway/dist/main.js with its
// production Node options, its Redis at REDIS_URL), so what the rest of the process costs
// each forwarded request shows too: its logger's async context, metrics, heap.
//
//   npm run build
//   node bench/gateway-forward.mjs [--seconds 8] [--connections 50] [--module path/to/fast-path.js]
//                                  [--headers browser]  (a browser's request headers)
//                                  [--rate 12000]  (a fixed load: how many requests each
//                                  wake-up finds changes the cost of each, so compare at one rate)
//   node bench/gateway-forward.mjs --whole
//   GATEWAY_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' node bench/gateway-forward.mjs
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuMeter, cpuSplit } from './proc.mjs';
import { freePort, serviceNodeOptions, waitFor } from '../packages/testkit/dist/index.js';

const gatewayDir = fileURLToPath(new URL('../services/gateway/', import.meta.url));
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '50' },
    /** Requests per second, all connections together (default: as many as it takes). */
    rate: { type: 'string' },
    /** `browser`: the headers a browser sends following a link (cookies included). */
    headers: { type: 'string', default: 'minimal' },
    module: { type: 'string', default: path.join(gatewayDir, 'dist/proxy/redirect-fast-path.js') },
    whole: { type: 'boolean', default: false },
  },
});

/** A node process running `code`, which prints its port once listening. */
async function server(code, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, '-e', code], {
    cwd: gatewayDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [port] = await once(child.stdout, 'data');
  return { pid: child.pid, port: Number(String(port).trim()), stop: () => child.kill('SIGTERM') };
}

const upstream = await server(`
  require('node:http').createServer((req, res) => {
    res.writeHead(302, {
      location: 'https://example.com/bench/1',
      'cache-control': 'private, no-store',
      'x-robots-tag': 'noindex',
      'content-length': '0',
    });
    res.end();
  }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`);
const gatewayNodeArgs = process.env.GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const gateway = args.whole ? await wholeGateway() : await fastPathAlone();

/** The fast path in front of a bare server, as the gateway puts it in front of Express. */
function fastPathAlone() {
  return server(
    `
  const { inFront, redirectFastPath } = require(${JSON.stringify(path.resolve(args.module))});
  const { securityHeaderValues } = require('./dist/edge/security-headers');
  // Exits on SIGTERM, so that --cpu-prof writes its profile.
  process.on('SIGTERM', () => process.exit(0));
  const server = require('node:http').createServer((req, res) => {
    res.writeHead(404);
    res.end();
  });
  inFront(server, redirectFastPath({
    target: 'http://127.0.0.1:${upstream.port}',
    trustedProxies: ['127.0.0.1', '::1'],
    logger: require('pino')({ level: 'warn' }),
    answerHeaders: securityHeaderValues('http://localhost:8080'),
  }));
  server.listen(0, '127.0.0.1', function () { console.log(this.address().port); });`,
    gatewayNodeArgs,
  );
}

/** The gateway service itself, as the stack runs it, with the stand-in as its redirect. */
async function wholeGateway() {
  const port = await freePort();
  // Its production options, then GATEWAY_NODE_ARGS as arguments (--cpu-prof is refused in
  // NODE_OPTIONS).
  const nodeArgs = [...(serviceNodeOptions('gateway')?.split(' ') ?? []), ...gatewayNodeArgs];
  const child = spawn(process.execPath, [...nodeArgs, path.join(gatewayDir, 'dist/main.js')], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      INTERNAL_API_SECRET: 'bench-gateway-forward-secret',
      REDIRECT_URL: `http://127.0.0.1:${upstream.port}`,
      TRUSTED_PROXIES: '127.0.0.1,::1',
      PUBLIC_ORIGIN: 'http://localhost:8080',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, {
    timeoutMs: 20_000,
    what: 'the gateway /healthz',
  });
  return { pid: child.pid, port, stop: () => child.kill('SIGTERM') };
}

// What Chrome sends when a link on another site is followed, with a session cookie of ours.
const BROWSER_HEADERS = {
  accept:
    'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8',
  'accept-encoding': 'gzip, deflate, br, zstd',
  'accept-language': 'en-GB,en-US;q=0.9,en;q=0.8',
  'cache-control': 'max-age=0',
  cookie: `sid=${'a'.repeat(43)}; theme=dark`,
  priority: 'u=0, i',
  referer: 'https://news.example.com/articles/2026/11/24/some-story',
  'sec-ch-ua': '"Chromium";v="131", "Not_A Brand";v="24"',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Linux"',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'cross-site',
  'sec-fetch-user': '?1',
  'upgrade-insecure-requests': '1',
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
};
const requestHeaders =
  args.headers === 'browser'
    ? BROWSER_HEADERS
    : { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) bench' };

const paths = Array.from({ length: 100 }, (_, i) => `/r/Code${String(i).padStart(3, '0')}`);
const load = (duration) =>
  autocannon({
    url: `http://127.0.0.1:${gateway.port}`,
    connections: Number(args.connections),
    ...(args.rate ? { overallRate: Number(args.rate) } : {}),
    duration,
    requests: paths.map((p) => ({ method: 'GET', path: p })),
    headers: requestHeaders,
  });

try {
  await load(2); // warm-up
  const meter = cpuMeter([
    ['load generator', (p) => p.pid === process.pid],
    ['gateway (forwarder)', (p) => p.pid === gateway.pid],
    ['upstream (bare 302)', (p) => p.pid === upstream.pid],
  ]);
  const gatewaySplit = cpuSplit(gateway.pid);
  const result = await load(Number(args.seconds));
  const cpu = meter();
  const split = gatewaySplit();
  const answered = result.requests.total;
  console.log(
    `${args.whole ? 'the whole gateway (dist/main.js)' : path.relative(process.cwd(), path.resolve(args.module))}: ${Math.round(result.requests.average)} requests/s, p99 ${result.latency.p99} ms, ${answered - result['3xx']} not 3xx, ${result.errors} errors`,
  );
  console.table(
    Object.fromEntries(
      Object.entries(cpu).map(([name, s]) => [
        name,
        { 'cpu s': Number(s.toFixed(2)), 'µs/request': Math.round((s * 1e6) / answered) },
      ]),
    ),
  );
  const perRequest = (s) => Math.round((s * 1e6) / answered);
  console.log(
    `gateway µs/request: ${perRequest(split.user)} user (its code), ${perRequest(split.system)} kernel (its system calls)`,
  );
} finally {
  gateway.stop();
  upstream.stop();
}
