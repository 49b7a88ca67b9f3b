import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A place for a socket only this user can open: a Unix socket in a folder of its own (mkdtemp
 * makes it 0700; a short path, as Unix socket paths are limited to about 100 bytes), or on
 * Windows a named pipe with a random name. `remove()` deletes the folder.
 */
export function privateSocket(name: string): { path: string; remove: () => void } {
  if (process.platform === 'win32') {
    const pipe = `\\\\.\\pipe\\shortener-${name}-${randomBytes(16).toString('hex')}`;
    return { path: pipe, remove: () => undefined };
  }
  const folder = mkdtempSync(path.join(tmpdir(), `shortener-${name}-`));
  return {
    path: path.join(folder, 'socket'),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
