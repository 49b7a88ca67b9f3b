import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// What a process listens on, read from /proc (Linux), and whether another local user can
// reach it: for the tests of who may connect where.

/** The inodes of the sockets process `pid` holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let link: string;
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode) inodes.add(inode);
  }
  return inodes;
}

/** The TCP ports process `pid` listens on (its socket inodes matched in /proc/net/tcp*). */
export function listeningPorts(pid: number): number[] {
  const inodes = socketInodes(pid);
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const rows = readFileSync(table, 'utf8').trim().split('\n').slice(1);
    for (const row of rows) {
      const [, local = '', , state, , , , , , inode = ''] = row.trim().split(/\s+/);
      if (state === '0A' && inodes.has(inode)) {
        ports.add(parseInt(local.split(':').pop() ?? '0', 16));
      }
    }
  }
  return [...ports];
}

/** The paths of the Unix sockets process `pid` listens on (matched in /proc/net/unix). */
export function listeningUnixSockets(pid: number): string[] {
  const inodes = socketInodes(pid);
  const paths = new Set<string>();
  const rows = readFileSync('/proc/net/unix', 'utf8').trim().split('\n').slice(1);
  for (const row of rows) {
    // Num RefCount Protocol Flags Type St Inode Path; flag 00010000: accepting connections.
    const [, , , flags = '', , , inode = '', socketPath] = row.trim().split(/\s+/);
    if (socketPath?.startsWith('/') && flags === '00010000' && inodes.has(inode)) {
      paths.add(socketPath);
    }
  }
  return [...paths];
}

/** The processes whose parent is `pid`, with their command lines. */
export function childProcesses(pid: number): Array<{ pid: number; command: string }> {
  const children: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== pid) continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      children.push({ pid: Number(entry), command });
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

const CONNECT = `
const socket = require('node:net').connect({ path: process.argv[1] });
socket.on('connect', () => { console.log('open'); socket.destroy(); });
socket.on('error', (error) => console.log(error.code ?? error.message));
`;

/** Whether users other than the owner may run `file`: it and every folder above it let them. */
function othersMayRun(file: string): boolean {
  const real = realpathSync(file);
  for (let entry = real; ; entry = path.dirname(entry)) {
    if ((statSync(entry).mode & 0o001) === 0) return false;
    if (entry === path.dirname(entry)) return true;
  }
}

let nodeForOthers: string | undefined;

/**
 * A node `nobody` may run: this one, or else a link to it (a copy across file systems) in a
 * folder of its own under the temporary folder, removed when this process exits. The node npm
 * test runs on (scripts/image-node.mjs) lives in npm's cache, under root's closed home.
 */
function nodeOthersMayRun(): string {
  if (nodeForOthers) return nodeForOthers;
  if (othersMayRun(process.execPath)) return (nodeForOthers = process.execPath);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'node-for-others-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  const node = path.join(dir, 'node');
  try {
    linkSync(process.execPath, node);
  } catch {
    copyFileSync(process.execPath, node);
  }
  chmodSync(node, 0o755);
  return (nodeForOthers = node);
}

/**
 * What another local user (`nobody`) gets when it connects to the Unix socket at
 * `socketPath`: 'open', or the error code (EACCES when the socket or its folder is closed to
 * it). Becoming another user takes root, as the tests run here (`npm test` installs nginx
 * and Chromium as root).
 */
export function connectAsNobody(socketPath: string): string {
  if (process.getuid?.() !== 0) {
    throw new Error('connecting as another user needs root (runuser)');
  }
  const attempt = spawnSync(
    'runuser',
    ['-u', 'nobody', '--', nodeOthersMayRun(), '-e', CONNECT, socketPath],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (attempt.status !== 0) throw new Error(`runuser failed: ${attempt.stderr}`);
  return attempt.stdout.trim();
}
