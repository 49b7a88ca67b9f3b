// Small helpers shared by the runner scripts: run a command to completion, or supervise
// long-running service processes with their output prefixed by name.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createInterface } from 'node:readline';

const COLORS = [36, 33, 35, 32, 34, 91, 96];

/** Runs a command with inherited output; resolves with its exit code. */
export function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    child.on('error', () => resolve(127));
  });
}

/** Runs a command with both its output streams into `file`; resolves with its exit code. */
export function runLogged(command, args, file, options = {}) {
  const out = openSync(file, 'w');
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', out, out] });
    let settled = false;
    const done = (code) => {
      if (settled) return;
      settled = true;
      closeSync(out);
      resolve(code);
    };
    child.on('exit', (code, signal) => done(code ?? (signal ? 128 : 1)));
    child.on('error', () => done(127));
  });
}

/** Prefixes every line a child prints with its name, so interleaved logs stay readable. */
export function prefixOutput(child, name, width) {
  const color = COLORS[[...name].reduce((sum, ch) => sum + ch.charCodeAt(0), 0) % COLORS.length];
  const label = process.stdout.isTTY
    ? `\u001b[${color}m${name.padEnd(width)}\u001b[0m |`
    : `${name.padEnd(width)} |`;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) =>
      process.stdout.write(`${label} ${line}\n`),
    );
  }
}
