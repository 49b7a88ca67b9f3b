import { once } from 'node:events';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { connect, type ListenOptions, type Server } from 'node:net';

/** Listens at `where`; rejects with the server's error (EADDRINUSE...) if it cannot. */
export async function listenOn(server: Server, where: ListenOptions): Promise<void> {
  server.listen(where);
  await once(server, 'listening');
}

/** Whether a server answers on the Unix socket at `path` (false: a file nobody listens on). */
function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' ? resolve(false) : reject(error),
    );
  });
}

/**
 * Listens on the Unix socket at `path`, its owner's alone (0600), since whoever connects may
 * name a visitor's address. A dead instance's socket is replaced; a live one's is an error.
 */
export async function listenOnUnixSocket(server: Server, path: string): Promise<void> {
  try {
    await listenOn(server, { path });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (!lstatSync(path).isSocket()) {
      throw new Error(`UNIX_SOCKET: ${path} exists and is not a socket`);
    }
    if (await socketAnswers(path)) {
      throw new Error(`UNIX_SOCKET: ${path} is in use: another server answers there`);
    }
    rmSync(path, { force: true });
    await listenOn(server, { path });
  }
  // A Windows named pipe has no mode: its name is the lock there.
  if (process.platform !== 'win32') chmodSync(path, 0o600);
}
