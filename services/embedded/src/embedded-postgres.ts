import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { startPostgresGate } from './postgres-gate';

export class EmbeddedDatabaseError extends Error {}

export interface EmbeddedPostgres {
  url: string;
  /** Takes group and world access away from every file of the database folder again. */
  tighten(): void;
  stop(): Promise<void>;
}

/** The password the services sign in with, kept beside the database it opens. */
const PASSWORD_FILE = 'postgres-password';
const WELL_FORMED = /^[A-Za-z0-9_-]{32,}$/;

const windows = process.platform === 'win32';

/**
 * PGlite's start parameters: its own, and a smaller buffer cache. PGlite's initdb sets
 * shared_buffers to 128 MB, and in WebAssembly that memory is allocated and zeroed at start
 * (it stays resident for as long as the process runs, used or not); the embedded mode's
 * data is small and PGlite reads its files through the operating system's page cache
 * anyway. Passed at start, not written to the folder's postgresql.conf: a folder of an
 * earlier version opens as it was, and one taken to a real server keeps its settings.
 */
export const BUFFER_CACHE = '16MB';
export const START_PARAMS = [...PGlite.defaultStartParams, '-c', `shared_buffers=${BUFFER_CACHE}`];

/**
 * Creates the database of an empty folder in a process of its own (create-database.ts says
 * why); resolves once it is on disk, rejects with what went wrong.
 */
function createDatabase(folder: string): Promise<void> {
  const script = path.join(__dirname, 'create-database.js');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, folder], (error, _stdout, stderr) => {
      if (error) reject(new Error(stderr.trim() || error.message));
      else resolve();
    });
  });
}

/**
 * Folders 0700 and files without group or world access, under `root` and `root` itself.
 * PGlite writes the files of a new database 0666 (its WebAssembly file system sets modes
 * itself, past the umask), and folders of earlier versions were left 0755.
 */
function makePrivate(root: string): void {
  if (windows) return; // modes mean little there; the user's profile folder is private
  const walk = (at: string): void => {
    const stat = lstatSync(at);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== 0o700) chmodSync(at, 0o700);
      for (const name of readdirSync(at)) walk(path.join(at, name));
    } else if ((stat.mode & 0o077) !== 0) {
      chmodSync(at, stat.mode & 0o700);
    }
  };
  walk(root);
}

/** The data folder's database password: made once, random, readable by this user only. */
function passwordOf(dataDir: string): string {
  const file = path.join(dataDir, PASSWORD_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (WELL_FORMED.test(kept)) return kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Only this process and whoever reads the file use it: a damaged one is simply replaced.
  const password = randomBytes(32).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * PostgreSQL compiled to WebAssembly (PGlite), its data in a folder of ours, served on a
 * loopback port so the services reach it with the same pg and TypeORM code as a real server.
 * The port asks for the data folder's password (a neighbour process on this machine has
 * none), and its connections take turns with PGlite's one session: a query, or a
 * transaction, runs whole before another connection's begins (shared-session.ts).
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const folder = path.join(dataDir, 'postgres');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  makePrivate(dataDir);
  const password = passwordOf(dataDir);
  let db: PGlite;
  try {
    // PG_VERSION is what PGlite looks for too: without it, it would run initdb here.
    if (!existsSync(path.join(folder, 'PG_VERSION'))) await createDatabase(folder);
    db = await PGlite.create(folder, { startParams: START_PARAMS });
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `the embedded database in ${folder} cannot be opened (${(error as Error).message}). ` +
        'Nothing was changed: move that folder aside to start with an empty one, or set ' +
        'DATA_DIR to another folder.',
    );
  }
  makePrivate(folder);
  const gate = await startPostgresGate({ password, session: db, maxConnections: 32 });
  return {
    url: `postgres://postgres:${password}@${gate.address}/postgres`,
    tighten: () => makePrivate(folder),
    stop: async () => {
      await gate.stop();
      await db.close();
      makePrivate(folder);
    },
  };
}
