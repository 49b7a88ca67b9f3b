import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// npm test runs on the Node.js the images run (.nvmrc pins a release of the Dockerfile's line):
// scripts/image-node.mjs starts a script again on it when the running node is of another line,
// and runs any command with it first on PATH. Whatever node runs this test (this machine's
// own, or the pinned one under npm test), what those run on is the pinned line.
const IMAGE_NODE = path.resolve(__dirname, '../../scripts/image-node.mjs');
const PINNED = fs.readFileSync(path.resolve(__dirname, '../../.nvmrc'), 'utf8').trim();
const LINE = PINNED.split('.')[0];

const run = (args: string[]) =>
  spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120_000 });

describe('the images’ Node.js for the suites (scripts/image-node.mjs)', () => {
  it('runs a command with a node of the pinned line first on PATH', () => {
    const child = run([IMAGE_NODE, 'node', '-p', 'process.versions.node']);
    expect(child.status).toBe(0);
    expect(child.stdout.trim().split('.')[0]).toBe(LINE);
  });

  it('runs a script that asks for it on the pinned line, with its arguments and exit code', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'image-node-'));
    const script = path.join(dir, 'script.mjs');
    fs.writeFileSync(
      script,
      `import { fileURLToPath } from 'node:url';
       const { relaunchOnImageNode } = await import(${JSON.stringify(pathToFileURL(IMAGE_NODE).href)});
       const relaunched = await relaunchOnImageNode(fileURLToPath(import.meta.url));
       if (relaunched !== null) process.exit(relaunched);
       console.log(JSON.stringify({ version: process.versions.node, args: process.argv.slice(2) }));
       process.exit(3);`,
    );
    try {
      const child = run([script, '--keep-infra', 'two words']);
      expect(child.status).toBe(3);
      const last = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
        version: string;
        args: string[];
      };
      expect(last.version.split('.')[0]).toBe(LINE);
      expect(last.args).toEqual(['--keep-infra', 'two words']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
