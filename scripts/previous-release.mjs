// The previous release, built beside this checkout: what rolling-upgrade tests run beside this
// release and record wire formats from. The release is the commit in
// tests/compat/previous-release.json; its build goes to .cache/previous-release/<commit>
// (git archive of the commit, npm ci of the services' production dependencies, their sources
// compiled by SWC; no web app), and is reused while it is there.
//
//   node scripts/previous-release.mjs          build it if missing; print its folder
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformFileSync } from '@swc/core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RELEASE_FILE = path.join(root, 'tests', 'compat', 'previous-release.json');
/** The services of the previous release that run; each installed with what it needs in production. */
const SERVICES = ['auth', 'links', 'analytics', 'redirect', 'gateway'];
const READY = '.previous-release-ready';

/** The previous release's commit. */
export function previousCommit() {
  const { commit } = JSON.parse(readFileSync(RELEASE_FILE, 'utf8'));
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`${RELEASE_FILE}: commit is not a full hash`);
  return commit;
}

/** Where the previous release's build is (or goes). */
function previousReleaseRoot(commit = previousCommit()) {
  return path.join(root, '.cache', 'previous-release', commit);
}

function step(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

/** The workspace folders the services are made of (they and the packages they import). */
function workspaceFolders(checkout) {
  const { workspaces } = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8'));
  return workspaces.filter(
    (folder) =>
      folder.startsWith('packages/') || SERVICES.includes(folder.replace(/^services\//, '')),
  );
}

/**
 * Each package's and service's src/*.ts to dist/*.js as `tsc -b` lays it out, by SWC from this
 * checkout (with the decorator metadata Nest reads, as the Jest preset compiles), without type
 * checks: the previous release was checked when it was made, and its type declarations and
 * TypeScript are dev dependencies this build does without.
 */
function transpile(checkout) {
  const options = {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: false,
    swcrc: false,
  };
  for (const folder of workspaceFolders(checkout)) {
    const src = path.join(checkout, folder, 'src');
    if (!existsSync(src)) continue;
    for (const file of readdirSync(src, { recursive: true })) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts') || /\.(int-)?spec\.ts$/.test(file))
        continue;
      const out = path.join(checkout, folder, 'dist', file.replace(/\.ts$/, '.js'));
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, transformFileSync(path.join(src, file), options).code);
    }
  }
}

/**
 * The previous release's build folder, made first when it is not there. Built in a folder of
 * its own and renamed into place when whole, so a build cut short is never taken for one, and
 * two runs at once each finish with a whole build.
 */
export async function ensurePreviousRelease({ log = console.log } = {}) {
  const commit = previousCommit();
  const target = previousReleaseRoot(commit);
  if (existsSync(path.join(target, READY))) return target;
  const began = Date.now();
  log(`Building the previous release ${commit.slice(0, 12)} in ${path.relative(root, target)}...`);
  const building = `${target}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  try {
    // git archive: the commit's files only, without a worktree registered in the repository.
    await step('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "${building}"`], {
      cwd: root,
    });
    // Only what the five services need in production: no web app, test or build tools (a
    // quarter of a full install). Scripts off: the one package of the lock file with an
    // install script (@scarf/scarf) only reports usage.
    const workspaces = SERVICES.flatMap((name) => ['-w', `services/${name}`]);
    await step(
      'npm',
      [
        'ci',
        '--omit=dev',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        ...workspaces,
      ],
      { cwd: building },
    );
    transpile(building);
    writeFileSync(path.join(building, READY), `${commit}\n`);
    // A folder without the mark is a build cut short (say, by an older version of this script).
    if (!existsSync(path.join(target, READY))) rmSync(target, { recursive: true, force: true });
    try {
      renameSync(building, target);
    } catch (error) {
      // Another run put its whole build there first: use that one.
      if (!existsSync(path.join(target, READY))) throw error;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  log(`Previous release built in ${((Date.now() - began) / 1000).toFixed(0)} s.`);
  return target;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(await ensurePreviousRelease({ log: (line) => console.error(line) }));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
