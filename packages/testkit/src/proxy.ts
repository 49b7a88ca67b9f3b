import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test controls, standing between a service and a real server, to make that
 * server unreachable (`cut`) and reachable again (`restore`) without touching the server.
 * While cut it refuses nothing at the TCP level but closes every connection at once, which
 * is what a client sees of a server that went away.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private passing: boolean;

  constructor(
    private readonly target: { host: string; port: number },
    { startOpen = true } = {},
  ) {
    this.passing = startOpen;
  }

  port = 0;

  async listen(port = 0): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : port;
    return this;
  }

  get isPassing(): boolean {
    return this.passing;
  }

  /** Drops every open connection and every new one until restored. */
  cut(): void {
    this.passing = false;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.passing = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private accept(client: Socket): void {
    if (!this.passing) {
      client.destroy();
      return;
    }
    splice(client, connect(this.target.port, this.target.host), this.sockets);
  }
}

/**
 * Joins two sockets both ways, each kept in `open` until either ends, when both are closed:
 * what a TCP proxy does with a connection it passes on.
 */
export function splice(client: Socket, upstream: Socket, open: Set<Socket>): void {
  open.add(client);
  open.add(upstream);
  const drop = (): void => {
    client.destroy();
    upstream.destroy();
    open.delete(client);
    open.delete(upstream);
  };
  client.on('error', drop).on('close', drop);
  upstream.on('error', drop).on('close', drop);
  client.pipe(upstream);
  upstream.pipe(client);
}
