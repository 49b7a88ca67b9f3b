import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const FRONTEND = path.resolve(fileURLToPath(import.meta.url), '../..');
const rootPackage = JSON.parse(readFileSync(path.resolve(FRONTEND, '../package.json'), 'utf8')) as {
  repository?: { url?: string };
};

describe('the production build', () => {
  // Built elsewhere: frontend/dist, which the gateway serves, is left alone.
  const outDir = mkdtempSync(path.join(tmpdir(), 'frontend-build-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("carries the root package.json's repository URL for the footer", () => {
    const manifest = createRequire(path.join(FRONTEND, 'package.json')).resolve(
      'vite/package.json',
    );
    const vite = path.join(path.dirname(manifest), 'bin/vite.js');
    const run = spawnSync(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir'], {
      cwd: FRONTEND,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const assets = path.join(outDir, 'assets');
    const code = readdirSync(assets)
      .filter((name) => name.endsWith('.js'))
      .map((name) => readFileSync(path.join(assets, name), 'utf8'))
      .join('\n');
    expect(rootPackage.repository?.url).toMatch(/^https:\/\//);
    expect(code).toContain(JSON.stringify(rootPackage.repository?.url));
  }, 60_000);
});
