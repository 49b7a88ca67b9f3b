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
  private delayMs = 0;

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

  /**
   * From now on holds every chunk `ms` before passing it on, either way, open connections
   * included (0: none again): a slow network or a slow server, as a client sees one.
   */
  slow(ms: number): void {
    this.delayMs = ms;
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
    splice(client, connect(this.target.port, this.target.host), this.sockets, () => this.delayMs);
  }
}

/**
 * Joins two sockets both ways, each kept in `open` until either ends, when both are closed:
 * what a TCP proxy does with a connection it passes on. With `delayMs`, each chunk is held
 * that long (read as it arrives) before it is passed on, in order.
 */
export function splice(
  client: Socket,
  upstream: Socket,
  open: Set<Socket>,
  delayMs?: () => number,
): void {
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
  if (delayMs === undefined) {
    client.pipe(upstream);
    upstream.pipe(client);
    return;
  }
  relay(client, upstream, delayMs);
  relay(upstream, client, delayMs);
}

/** Passes what `from` sends to `to`, each chunk `delayMs()` later, never out of order. */
function relay(from: Socket, to: Socket, delayMs: () => number): void {
  let last = 0;
  const later = (send: () => void): void => {
    const now = Date.now();
    last = Math.max(now + delayMs(), last);
    if (last <= now) send();
    else setTimeout(() => to.destroyed || send(), last - now);
  };
  from.on('data', (chunk: Buffer) => later(() => to.write(chunk)));
  from.on('end', () => later(() => to.end()));
}
