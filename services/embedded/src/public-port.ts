import type { Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';

/** The public port cannot be used as asked: what to change, in one line. */
export class PortProblem extends Error {}

/** Where the product listens unless HOST says otherwise: this machine only. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1'];

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.address : host);
    });
  });
}

/**
 * Checks that the port is free on every host and answers the addresses the hosts bind to
 * (a name such as `localhost` resolves to one). An optional host this machine lacks (::1
 * where IPv6 is off) is left out rather than stopping start-up.
 */
export async function publicAddresses(
  port: number,
  hosts: string[],
  optional: (host: string) => boolean,
): Promise<Array<{ host: string; address: string }>> {
  const found: Array<{ host: string; address: string }> = [];
  for (const host of hosts) {
    const probe = createServer();
    try {
      found.push({ host, address: await listen(probe, port, host) });
      await new Promise((resolve) => probe.close(resolve));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') && optional(host)) continue;
      throw new PortProblem(
        code === 'EADDRINUSE'
          ? `port ${port} is already in use: stop what uses it, or set PORT to a free port`
          : `cannot listen on port ${port} of ${host} (${code ?? (error as Error).message}): set PORT to another port, or HOST to an address of this machine`,
      );
    }
  }
  return found;
}

/**
 * Makes an HTTP server answer on one more address: connections accepted there are handed to
 * it as its own (the 'connection' event Node documents for this), so one server, one
 * configuration, serves 127.0.0.1 and ::1.
 */
export async function alsoListen(target: HttpServer, port: number, host: string): Promise<Server> {
  const extra = createServer((socket) => target.emit('connection', socket));
  await listen(extra, port, host);
  return extra;
}
