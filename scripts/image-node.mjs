// The Node.js the images run, for the test suites: the release .nvmrc pins, of the line the
// Dockerfile's NODE_VERSION names. When the node running a script is of another line (this
// machine's may be 20, past its end of life since April 2026), the pinned release comes from
// the npm registry's `node` package through npx (once, about 40 MB, kept in npm's cache) and
// the script runs again on it, with that node first on PATH for everything it starts.
//
//   node scripts/image-node.mjs                    print the path of the pinned node
//   node scripts/image-node.mjs <command> [args]   run a command with it first on PATH, e.g.
//     node scripts/image-node.mjs npx jest --testPathPatterns int-spec
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The pinned release, say 24.21.0 (.nvmrc, which nvm and CI's setup-node read too). */
function pinnedNodeVersion() {
  const file = path.join(root, '.nvmrc');
  const version = readFileSync(file, 'utf8').trim().replace(/^v/, '');
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`${file}: not a release like 24.21.0`);
  return version;
}

const major = (version) => Number(version.split('.')[0]);

/** Whether the running node is of the pinned line (then it runs the suites as it is). */
const onPinnedLine = () => major(process.versions.node) === major(pinnedNodeVersion());

/** The path of a node of the pinned line: this one, or the pinned release fetched by npx. */
function imageNode() {
  if (onPinnedLine()) return process.execPath;
  const version = pinnedNodeVersion();
  const found = spawnSync(
    'npx',
    ['--yes', '--prefer-offline', '-p', `node@${version}`, 'node', '-p', 'process.execPath'],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const binary = found.stdout?.trim() ?? '';
  if (found.status !== 0 || !path.isAbsolute(binary)) {
    throw new Error(
      `Could not get Node.js ${version} from the npm registry (npx -p node@${version}). ` +
        `Install Node.js ${major(version)} (nvm install reads .nvmrc) and run again.`,
    );
  }
  return binary;
}

/** `env` with `binary` first on PATH and named where npm names its node. */
function envFor(binary, env = process.env) {
  return {
    ...env,
    PATH: [path.dirname(binary), env.PATH].filter(Boolean).join(path.delimiter),
    NODE: binary,
    npm_node_execpath: binary,
  };
}

/** Runs `command` with `binary` first on PATH; resolves with its exit code. */
function runWith(binary, command, args) {
  const child = spawn(command, args, { stdio: 'inherit', env: envFor(binary) });
  // Ctrl-C reaches both through the terminal; a signal sent to this process alone is passed on.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    child.on('error', (error) => {
      console.error(`${command}: ${error.message}`);
      resolve(127);
    });
  });
}

/**
 * Runs `script` (with this process's arguments) again on the pinned node when the running one
 * is of another line, and resolves with its exit code; resolves with null when this node is
 * of the pinned line, and the caller goes on.
 */
export async function relaunchOnImageNode(script) {
  if (onPinnedLine()) return null;
  const binary = imageNode();
  console.log(
    `Node.js ${process.version} is not of the images' line: running on ${pinnedNodeVersion()} ` +
      `(${binary}).`,
  );
  return runWith(binary, binary, [script, ...process.argv.slice(2)]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const binary = imageNode();
    const [command, ...args] = process.argv.slice(2);
    if (command) process.exitCode = await runWith(binary, command, args);
    else console.log(binary);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
