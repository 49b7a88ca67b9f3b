// Process and port helpers. Linux only (reads /proc), like the machines infra targets.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Full path of an executable on PATH, or null: lets us say "install X" before failing. */
export function which(command) {
  if (command.includes('/')) return isExecutable(command) ? command : null;
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const candidate = path.join(dir || '.', command);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Calls `start`, which spawns a process, with umask 077: the child inherits the mask when it
 * is forked, so everything it creates is its user's alone, whatever this process's mask is.
 */
export function withPrivateFiles(start) {
  const previous = process.umask(0o077);
  try {
    return start();
  } finally {
    process.umask(previous);
  }
}

/** `dir`, made if missing, then 0700 (also when it existed with looser modes). */
export function privateFolder(dir) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/**
 * Runs a command to completion and returns its output; never throws on a non-zero exit
 * because every caller turns failures into its own one-line explanation.
 */
export function run(command, args, { timeoutMs = 120_000, env, cwd } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: stderr || error.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr });
    });
  });
}

/** Alive and not a zombie: a killed child of this very process lingers as one until reaped. */
export function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** argv of a process, or [] if it is gone or not ours to read. */
export function argvOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/** Pids of live processes whose argv matches; used to recognise our own broker without a pid file. */
export function findProcesses(matches) {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const argv = argvOf(pid);
    if (argv.length && matches(argv) && isAlive(pid)) found.push(pid);
  }
  return found;
}

async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
  return true;
}

/** Signals the whole process group when the process leads one, so JVM helpers die too. */
export function signal(pid, sig) {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, sig);
      return true;
    } catch (error) {
      if (error.code === 'EPERM') throw error;
    }
  }
  return false;
}

/**
 * Stops a process: `sig` first, SIGKILL once `graceMs` has passed.
 * @returns {Promise<{ forced: boolean }>}
 */
export async function stopProcess(pid, { sig = 'SIGTERM', graceMs = 30_000 } = {}) {
  if (!isAlive(pid)) return { forced: false };
  signal(pid, sig);
  if (sig !== 'SIGKILL' && (await waitForExit(pid, graceMs))) return { forced: false };
  signal(pid, 'SIGKILL');
  await waitForExit(pid, 10_000);
  return { forced: sig !== 'SIGKILL' };
}

/** Last `count` lines of a text file, '' if it does not exist. */
export function tailFile(file, count = 20, { after } = {}) {
  let text = '';
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const length = Math.min(size, 256 * 1024);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, size - length);
      text = buffer.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
  if (after && text.lastIndexOf(after) >= 0) text = text.slice(text.lastIndexOf(after));
  return text
    .split('\n')
    .filter((line) => line.trim())
    .slice(-count);
}
