import { PGlite } from '@electric-sql/pglite';

/**
 * Creates an empty PostgreSQL database in the folder named by the first argument, then exits.
 * The embedded mode runs this in a process of its own on its first start: PGlite's initdb
 * runs in two more WebAssembly instances beside the database's (each with at least 128 MB of
 * memory), and the memory they leave behind (their compiled code, freed allocations the
 * allocator keeps) would stay in the server's process for as long as it runs.
 */
async function create(folder: string): Promise<void> {
  const db = await PGlite.create(folder);
  await db.close();
}

const folder = process.argv[2];
if (!folder) {
  process.stderr.write('usage: create-database <folder>\n');
  process.exit(2);
}
create(folder).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
