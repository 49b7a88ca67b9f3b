import { execFile } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { serveInProcess } from '@shortener/chassis-postgres';
import { pgliteDriver } from './pglite-pool';

export class EmbeddedDatabaseError extends Error {}

export interface EmbeddedPostgres {
  url: string;
  /** Takes group and world access away from every file of the database folder again. */
  tighten(): void;
  stop(): Promise<void>;
}

const windows = process.platform === 'win32';

/**
 * PGlite's start parameters: its own, and a smaller buffer cache. PGlite's initdb sets
 * shared_buffers to 128 MB, and in WebAssembly that memory is allocated and zeroed at start
 * (it stays resident for as long as the process runs, used or not); the embedded mode's
 * data is small and PGlite reads its files through the operating system's page cache
 * anyway. Passed at start, not written to the folder's postgresql.conf: a folder of an
 * earlier version opens as it was, and one taken to a real server keeps its settings.
 */
const BUFFER_CACHE = '4MB';
const START_PARAMS = [...PGlite.defaultStartParams, '-c', `shared_buffers=${BUFFER_CACHE}`];

/**
 * PostgreSQL's WebAssembly is compiled by V8's baseline compiler (Liftoff) only. By default
 * V8 recompiles the functions that run often with its optimizing compiler, and the memory
 * those compilations take (on background threads, in allocator arenas that keep it) stayed
 * resident, most of the process's idle memory beyond Node and the services. The embedded
 * database's queries are small, and the service code around them costs more than the
 * baseline code's speed (docs/reliability/performance.md). Process-wide V8 flags, read when
 * a module is compiled: set before PGlite compiles its module, they also apply to
 * WebAssembly compiled later in this process (fetch's HTTP parser). Set at run time, Node 24's
 * V8 does not apply what `--liftoff-only` implies on a command line (no tier-up, static or
 * dynamic), and hot functions were still recompiled: each flag is named.
 */
const BASELINE_ONLY_FLAGS = [
  '--liftoff-only',
  '--no-wasm-tier-up',
  '--no-wasm-dynamic-tiering',
] as const;

function compileWithBaselineOnly(): void {
  for (const flag of BASELINE_ONLY_FLAGS) setFlagsFromString(flag);
}

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

/** The URL the services are given: served in this process only (".invalid" resolves nowhere). */
const URL = 'postgres://pglite.invalid/postgres';

/**
 * PostgreSQL compiled to WebAssembly (PGlite), its data in a folder of ours, opened in this
 * process and reached by the services' data sources in it (pglite-pool.ts), never over a
 * port: nothing outside the process can connect to it.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const folder = path.join(dataDir, 'postgres');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  makePrivate(dataDir);
  let db: PGlite;
  try {
    // PG_VERSION is what PGlite looks for too: without it, it would run initdb here.
    if (!existsSync(path.join(folder, 'PG_VERSION'))) await createDatabase(folder);
    compileWithBaselineOnly();
    db = await PGlite.create(folder, { startParams: START_PARAMS });
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `the embedded database in ${folder} cannot be opened (${(error as Error).message}). ` +
        'Nothing was changed: move that folder aside to start with an empty one, or set ' +
        'DATA_DIR to another folder.',
    );
  }
  makePrivate(folder);
  const withdraw = serveInProcess(URL, pgliteDriver(db));
  return {
    url: URL,
    tighten: () => makePrivate(folder),
    stop: async () => {
      withdraw();
      await db.close();
      makePrivate(folder);
    },
  };
}
