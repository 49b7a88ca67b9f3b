// .infra/state.json records what `up` started (and nothing else), so `down` can stop
// exactly that and leave alone servers that were running before.
//
// Shape: { postgres?: { cluster, pid }, redis?: { pid, port }, kafka?: { pid, startedAt } }
import fs from 'node:fs';
import path from 'node:path';
import { InfraError } from './errors.mjs';
import { paths } from './paths.mjs';
import { isAlive, sleep } from './proc.mjs';

export function readState() {
  try {
    const state = JSON.parse(fs.readFileSync(paths.stateFile, 'utf8'));
    return state && typeof state === 'object' ? state : {};
  } catch {
    // Missing or torn file: nothing is known to be ours, which is the safe default.
    return {};
  }
}

function writeState(state) {
  fs.mkdirSync(path.dirname(paths.stateFile), { recursive: true });
  const temp = `${paths.stateFile}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`);
  fs.renameSync(temp, paths.stateFile);
}

/** Sets (or with `undefined`, removes) one server's entry. */
export function recordState(key, value) {
  const state = readState();
  if (value === undefined) delete state[key];
  else state[key] = value;
  writeState(state);
}

// Two infra commands at once (a developer's `infra:up` while the test runner starts)
// would race to start the same broker; a lock file serialises them across processes,
// a promise chain within one.
let chain = Promise.resolve();

/** Runs `fn` while holding the infra lock. Not re-entrant: internal helpers never take it. */
export function withLock(fn, { timeoutMs = 180_000 } = {}) {
  const result = chain.then(() => lockedRun(fn, timeoutMs));
  chain = result.catch(() => {});
  return result;
}

async function lockedRun(fn, timeoutMs) {
  fs.mkdirSync(path.dirname(paths.lockFile), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.writeFileSync(paths.lockFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = Number(fs.readFileSync(paths.lockFile, 'utf8').trim()) || 0;
    if (holder === process.pid || !isAlive(holder)) {
      // Left behind by a killed infra command.
      fs.rmSync(paths.lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new InfraError(
        `Another infra command (pid ${holder}) is still running: wait for it, or remove ${paths.lockFile} if it is stuck.`,
      );
    }
    await sleep(200);
  }
  const release = () => {
    try {
      if (fs.readFileSync(paths.lockFile, 'utf8').trim() === String(process.pid)) {
        fs.rmSync(paths.lockFile, { force: true });
      }
    } catch {
      // already gone
    }
  };
  process.once('exit', release);
  try {
    return await fn();
  } finally {
    process.removeListener('exit', release);
    release();
  }
}
