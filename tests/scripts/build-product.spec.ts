import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WEB_APP_PAGES } from '@shortener/contracts';

// `npm start` and `npm run stack` build what they serve through one helper
// (scripts/lib/build.mjs). It is an ES module, which Jest's CommonJS runtime cannot load:
// it runs in a child process here, on a checkout of its own, with the commands it would run
// recorded instead of run.
const HELPER = pathToFileURL(path.resolve(__dirname, '../../scripts/lib/build.mjs')).href;
const PROBE = `
import { buildProduct } from ${JSON.stringify(HELPER)};
const [root, env] = JSON.parse(process.argv[1]);
const commands = [];
const run = async (command, args) => (commands.push([command, ...args].join(' ')), 0);
const built = await buildProduct(root, { env, run, log: () => undefined });
console.log(JSON.stringify({ built, commands }));
`;

function buildIn(root: string, env: Record<string, string> = {}) {
  const probe = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', PROBE, JSON.stringify([root, env])],
    { encoding: 'utf8' },
  );
  if (probe.status !== 0) throw new Error(`probe failed: ${probe.stderr}`);
  return JSON.parse(probe.stdout) as { built: boolean; commands: string[] };
}

const TSC = 'npx tsc -b';
const WEB_APP = 'npm run build --silent --workspace frontend';

describe('building what npm start and npm run stack serve', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'checkout-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds the services and the web app when frontend/dist/index.html is missing', () => {
    expect(buildIn(root)).toEqual({ built: true, commands: [TSC, WEB_APP] });
    mkdirSync(path.join(root, 'frontend/dist'), { recursive: true });
    expect(buildIn(root).commands).toEqual([TSC, WEB_APP]);
  });

  it('builds only the services when the web app is built', () => {
    mkdirSync(path.join(root, 'frontend/dist'), { recursive: true });
    for (const page of Object.values(WEB_APP_PAGES)) {
      writeFileSync(path.join(root, 'frontend/dist', page), '<!doctype html>');
    }
    expect(buildIn(root)).toEqual({ built: true, commands: [TSC] });
  });

  it('builds the web app again when it was built before its home page was prerendered', () => {
    mkdirSync(path.join(root, 'frontend/dist'), { recursive: true });
    writeFileSync(path.join(root, 'frontend/dist/index.html'), '<!doctype html>');
    expect(buildIn(root).commands).toEqual([TSC, WEB_APP]);
  });

  it('leaves the web app alone when FRONTEND_DIR serves another one', () => {
    expect(buildIn(root, { FRONTEND_DIR: path.join(root, 'elsewhere') }).commands).toEqual([TSC]);
    // ...but builds it when FRONTEND_DIR names this checkout's own, relative or not.
    expect(buildIn(root, { FRONTEND_DIR: 'frontend/dist' }).commands).toEqual([TSC, WEB_APP]);
  });
});
