// Network checks: whether a host is this machine and who holds a port.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { argvOf } from './proc.mjs';

/** Only servers on this machine can be started by infra; anything else is the user's to run. */
export function isLocalHost(host) {
  const bare = String(host)
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    bare.startsWith('127.') ||
    bare.startsWith('/') || // unix socket directory
    bare === os.hostname().toLowerCase()
  );
}

/** True when nothing else listens on host:port (binding is the only reliable test). */
export function isPortFree(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Who listens on a TCP port, as `{ pid, command }`, so errors can name the culprit. */
export function portOwner(port) {
  const inodes = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A') continue; // 0A = LISTEN
      if (parseInt(cols[1].split(':').pop(), 16) === port) inodes.add(cols[9]);
    }
  }
  if (!inodes.size) return null;
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let fds = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link = '';
      try {
        link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode && inodes.has(inode)) {
        const argv = argvOf(pid);
        return { pid, command: argv.length ? path.basename(argv[0]) : '?', argv };
      }
    }
  }
  return { pid: null, command: null, argv: [] };
}
