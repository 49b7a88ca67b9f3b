import { Server as HttpServer, type Server, type ServerResponse } from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { keepIdleConnections, type KeepAliveConfig } from './keep-alive';
import type { OpsRoutes } from './ops-http';
import type { RunningService } from './service';
import { onShutdown } from './shutdown';
import { listenOn, listenOnUnixSocket } from './unix-socket';

type Step = { name: string; run: () => Promise<void> };

/**
 * How long a stopping server goes on answering before its listeners close and its idle
 * connections are dropped: what a client sent as the signal came (down a kept-alive connection
 * Node would call idle, or on a connection not accepted yet) is answered, with Connection: close,
 * instead of reset. Ends early once every connection has closed.
 */
export const CLOSING_GRACE_MS = 500;

export interface ServeOptions {
  name: string;
  /** The HTTP server for PORT, not listening yet. */
  server: Server;
  /** A server for UNIX_SOCKET beside it (listenOnUnixSocket), closed with it. */
  unixSocket?: { server: NetServer; path: string } | undefined;
  config: { PORT: number; HOST: string } & KeepAliveConfig;
  logger: Logger;
  /** Run by a host (the embedded mode), which answers the signals and exits itself. */
  hosted?: boolean | undefined;
  ops: OpsRoutes;
  /** How `server` starts listening on PORT and HOST (a framework's own way); listenOn by default. */
  listen?: () => Promise<unknown>;
  /** Undoes what was started for the servers when one cannot listen. */
  abandon?: () => Promise<void>;
  /**
   * Run as the servers stop listening (after CLOSING_GRACE_MS): readiness says it is stopping,
   * live streams end (a client reconnecting then reaches another instance, never this one).
   */
  stopping: () => void;
  /** After the servers have closed (their requests answered), before the ops port closes. */
  steps: readonly Step[];
}

/**
 * The sequence every service runs, the redirect's node:http and the Nest services alike: the
 * Unix socket bound first (a socket in use stops the start-up before anything answers), then
 * PORT, idle connections kept past the proxy's, the ops port; and the shutdown that stops
 * taking requests, runs the service's steps, and closes the ops port last (readiness keeps
 * saying "shutting down" while the rest drains).
 */
export async function serve(options: ServeOptions): Promise<RunningService> {
  const { name, server, unixSocket, config, logger, hosted, ops } = options;
  // A socket server that hands its connections to `server` (the Nest services') is closed but
  // not waited for: a proxy's idle keep-alive connection on it, after a stream ended, would hold
  // the shutdown until the proxy drops it. An HTTP server of its own closes its idle ones.
  const awaited = unixSocket?.server instanceof HttpServer ? [unixSocket.server] : [];
  const open = new Set<Socket>();
  for (const each of [server, ...awaited]) {
    each.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    });
  }
  try {
    if (unixSocket) await listenOnUnixSocket(unixSocket.server, unixSocket.path);
    try {
      await (options.listen?.() ?? listenOn(server, { port: config.PORT, host: config.HOST }));
    } catch (error) {
      unixSocket?.server.close();
      throw error;
    }
  } catch (error) {
    await options.abandon?.();
    throw error;
  }
  keepIdleConnections(server, config);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info(
    { port, socket: unixSocket?.path },
    `${name} listening on port ${port}` + (unixSocket ? ` and on ${unixSocket.path}` : ''),
  );
  await ops.listen();

  const shutdown = onShutdown({
    logger,
    handleSignals: !hosted,
    ...(hosted ? { exit: () => undefined } : {}),
    steps: [
      {
        name: 'stop taking requests',
        run: async () => {
          const closeAfterAnswer = (_req: unknown, res: ServerResponse) => {
            res.shouldKeepAlive = false;
          };
          for (const each of [server, ...awaited])
            each.prependListener('request', closeAfterAnswer);
          const until = Date.now() + CLOSING_GRACE_MS;
          do await sleep(20);
          while (open.size > 0 && Date.now() < until);
          if (unixSocket && awaited.length === 0) unixSocket.server.close();
          // close() also drops the connections idle now; the others close after their answer.
          const closed = [server, ...awaited].map(
            (each) => new Promise<void>((resolve) => each.close(() => resolve())),
          );
          // Once nothing new comes in: a live stream ended here reconnects elsewhere, not here.
          options.stopping();
          await Promise.all(closed);
        },
      },
      ...options.steps,
      { name: 'close the ops port', run: () => ops.close() },
    ],
  });
  return { port, server, shutdown };
}
