import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@shortener/testkit';
import { startCopied, stop, type Embedded } from './embedded-app';

// What the embedded process holds in memory beyond what it uses, checked on the process
// itself (its figures are the bench's: node bench/embedded-memory.mjs): the clients of servers
// it was not pointed at, and WebAssembly recompiled by V8's optimizing tier.

/**
 * Preloaded into the embedded process (--require): on SIGUSR2 it writes to PROBE_REPORT its
 * id and the Node options it was started with, the packages its modules come from (CommonJS,
 * as kafkajs and ioredis are, whether required or imported), and the tier a WebAssembly
 * function compiled then reaches once it runs hot.
 */
const PROBE = String.raw`
const { renameSync, writeFileSync } = require('node:fs');
const { setFlagsFromString } = require('node:v8');
// (func (param i32) (result i32) (local i32): the sum of n, n-1, ..., 1, in a loop)
const SUM = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0,
  7, 7, 1, 3, 115, 117, 109, 0, 0, 10, 27, 1, 25, 1, 1, 127, 3, 64, 32, 1, 32, 0, 106, 33, 1, 32,
  0, 65, 1, 107, 34, 0, 13, 0, 11, 32, 1, 11]);
async function hotTier() {
  setFlagsFromString('--allow-natives-syntax');
  const tier = new Function('f', 'return %IsTurboFanFunction(f) ? "optimized" : %IsLiftoffFunction(f) ? "liftoff" : "not compiled"');
  const { sum } = new WebAssembly.Instance(new WebAssembly.Module(SUM)).exports;
  const until = Date.now() + 3000;
  while (Date.now() < until && tier(sum) !== 'optimized') {
    sum(100000);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return tier(sum);
}
process.on('SIGUSR2', async () => {
  const packages = new Set();
  for (const file of Object.keys(require.cache)) {
    const found = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
    if (found) packages.add(found[1]);
  }
  const report = {
    pid: process.pid,
    execArgv: process.execArgv,
    packages: [...packages].sort(),
    hotWasmTier: await hotTier(),
  };
  writeFileSync(process.env.PROBE_REPORT + '.part', JSON.stringify(report));
  renameSync(process.env.PROBE_REPORT + '.part', process.env.PROBE_REPORT);
});
`;

interface ProbeReport {
  pid: number;
  execArgv: string[];
  packages: string[];
  hotWasmTier: string;
}

describe('embedded mode footprint', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'embedded-footprint-'));
  const probe = path.join(dir, 'probe.cjs');
  const reportFile = path.join(dir, 'report.json');
  let app: Embedded;
  let report: ProbeReport;

  beforeAll(async () => {
    writeFileSync(probe, PROBE);
    app = await startCopied(path.join(dir, 'data'), {
      NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --require ${probe}`.trim(),
      PROBE_REPORT: reportFile,
    });
    // A link shortened and followed: the visit bus and the redirect's path have run too.
    const shortened = await fetch(
      `${app.url}/api/shorten/?url=${encodeURIComponent('https://example.com/footprint')}&days=7`,
      { method: 'POST', headers: { 'X-Requested-With': 'XMLHttpRequest' } },
    );
    const { url: code } = (await shortened.json()) as { url: string };
    expect((await fetch(`${app.url}/r/${code}`, { redirect: 'manual' })).status).toBe(302);
    app.child.kill('SIGUSR2');
    await waitFor(() => existsSync(reportFile), { timeoutMs: 20_000, what: 'the probe report' });
    report = JSON.parse(readFileSync(reportFile, 'utf8')) as ProbeReport;
  });

  afterAll(async () => {
    if (app) await stop(app);
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads no Kafka or Redis client when no Kafka or Redis is configured', () => {
    // The probe sees the process's packages (the services' own, NestJS...), so an empty
    // answer would not mean a clean one.
    expect(report.packages).toContain('@nestjs/core');
    expect(report.packages.filter((name) => ['kafkajs', 'ioredis'].includes(name))).toEqual([]);
  });

  it('keeps WebAssembly compiled after start-up on the baseline tier, however hot', () => {
    expect(report.hotWasmTier).toBe('liftoff');
  });

  it("caps V8's young generation in the process it was started as, which Ctrl-C stops", async () => {
    // The size is read only at a process's start: the process replaced itself (execve) by
    // one started with it, and signals still reach it directly.
    expect(report.pid).toBe(app.child.pid);
    const semiSpace = report.execArgv.filter((arg) => arg.startsWith('--max-semi-space-size='));
    expect(semiSpace).toHaveLength(1);
    app.child.kill('SIGINT');
    expect(await app.exited).toBe(0);
  });
});
