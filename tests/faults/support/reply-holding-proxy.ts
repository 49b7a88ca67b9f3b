import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

interface Pair {
  client: Socket;
  upstream: Socket;
  /** The tail of what the client sent, so a marker split over two reads is still found. */
  tail: string;
  held: Buffer[];
}

const SEEN_LIMIT = 1 << 20;

/**
 * A TCP proxy that passes requests on but can hold the server's replies back: the server has
 * done the work, the client has not heard of it. Used to stop a service at an exact point of
 * a conversation (a query executed, a COMMIT sent) before killing it, which a proxy that only
 * cuts connections (testkit's TcpProxy) cannot do. It reads protocols as latin1 text, which is
 * enough to find SQL or Redis commands in them.
 */
export class ReplyHoldingProxy {
  port = 0;
  private server: Server | undefined;
  private readonly pairs = new Set<Pair>();
  private holding = false;
  private trigger: { marker: string; fire: () => void } | undefined;
  /** What clients sent since the replies were held, for waitForSent. */
  private seen = '';

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<this> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  /** Holds every reply from now on until release(). */
  holdReplies(): void {
    this.holding = true;
    this.seen = '';
  }

  /**
   * Resolves once a client has sent `marker` (e.g. `COMMIT`); from that moment every reply is
   * held, so the server has executed it and no client has seen the outcome.
   */
  holdRepliesAfter(marker: string, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.trigger = undefined;
        reject(new Error(`no client sent "${marker}" within ${timeoutMs} ms`));
      }, timeoutMs);
      this.trigger = {
        marker,
        fire: () => {
          clearTimeout(timer);
          this.trigger = undefined;
          resolve();
        },
      };
    });
  }

  /** Waits until clients have sent every one of `markers` since the replies were held. */
  async waitForSent(markers: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!markers.every((marker) => this.seen.includes(marker))) {
      if (Date.now() > deadline) {
        const missing = markers.filter((marker) => !this.seen.includes(marker));
        throw new Error(`not sent within ${timeoutMs} ms: ${missing.join(', ')}`);
      }
      await sleep(20);
    }
  }

  /** Delivers what was held, in order, and passes replies again. */
  release(): void {
    this.holding = false;
    for (const pair of this.pairs) {
      for (const chunk of pair.held) pair.client.write(chunk);
      pair.held = [];
    }
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) this.drop(pair);
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private accept(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    const pair: Pair = { client, upstream, tail: '', held: [] };
    this.pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      const text = pair.tail + chunk.toString('latin1');
      pair.tail = text.slice(-256);
      if (this.trigger && text.includes(this.trigger.marker)) {
        // Held before the bytes go on, so no reply to them can slip through.
        this.holding = true;
        this.seen = '';
        this.trigger.fire();
      }
      if (this.holding && this.seen.length < SEEN_LIMIT) this.seen += text;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (this.holding) pair.held.push(chunk);
      else client.write(chunk);
    });
    // Either side gone: so is the other. A client killed mid-transaction thus makes the
    // server see its connection close, and roll the transaction back.
    const drop = (): void => this.drop(pair);
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  }

  private drop(pair: Pair): void {
    pair.client.destroy();
    pair.upstream.destroy();
    pair.held = [];
    this.pairs.delete(pair);
  }
}
