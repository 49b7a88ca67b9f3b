import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export class EmbeddedDatabaseError extends Error {}

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * PostgreSQL compiled to WebAssembly (PGlite), its data in a folder of ours, served on a
 * loopback port through its socket server so the services reach it with the same pg and
 * TypeORM code as a real server. The server multiplexes connections and keeps each
 * transaction to the connection that opened it.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const folder = path.join(dataDir, 'postgres');
  mkdirSync(folder, { recursive: true });
  let db: PGlite;
  try {
    db = await PGlite.create(folder);
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `the embedded database in ${folder} cannot be opened (${(error as Error).message}). ` +
        'Nothing was changed: move that folder aside to start with an empty one, or set ' +
        'DATA_DIR to another folder.',
    );
  }
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 });
  await server.start();
  // getServerConn() answers "host:port" of the socket actually bound.
  const address = server.getServerConn();
  return {
    url: `postgres://postgres@${address}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
