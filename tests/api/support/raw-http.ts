import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** One answer as it came over the wire. */
export interface RawAnswer {
  status: number;
  /** Names in lower case; a repeated header's values joined with `, `. */
  headers: Record<string, string>;
  body: string;
}

/**
 * A client that writes bytes as given on one connection and reads the answers as they come:
 * for what fetch will not send (a GET with a body, a framing of our choosing, a request
 * written a byte at a time) and for seeing which answers one connection carries.
 */
export class RawConnection {
  private received = Buffer.alloc(0);
  private ended = false;
  private wake: () => void = () => undefined;
  private readonly openedAt = Date.now();
  /** Resolves with the milliseconds from opening to the server closing the connection. */
  readonly closed: Promise<number>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true;
        this.wake();
        resolve(Date.now() - this.openedAt);
      }),
    );
    socket.on('error', () => undefined); // a reset is a close, seen through `closed`
  }

  /** Opens a connection to a TCP `url`'s host and port, or to a Unix socket `{ path }`. */
  static async open(target: string | { path: string }): Promise<RawConnection> {
    const socket =
      typeof target === 'string'
        ? connect({ host: new URL(target).hostname, port: Number(new URL(target).port) })
        : connect({ path: target.path });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawConnection(socket);
  }

  write(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  get isClosed(): boolean {
    return this.ended;
  }

  /**
   * The next whole answer on the connection; undefined when the server closes it first or
   * nothing whole arrives within `timeoutMs`.
   */
  async next(timeoutMs = 5_000): Promise<RawAnswer | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = this.parse();
      if (answer !== undefined) return answer;
      if (this.ended || Date.now() >= deadline) return undefined;
      await Promise.race([
        new Promise<void>((resolve) => (this.wake = resolve)),
        sleep(deadline - Date.now()),
      ]);
    }
  }

  /** Writes `pieces` one by one, `intervalMs` apart, until the server closes the connection. */
  async drip(pieces: readonly string[], intervalMs: number): Promise<void> {
    for (const piece of pieces) {
      if (this.ended) return;
      this.write(piece);
      await Promise.race([this.closed, sleep(intervalMs)]);
    }
  }

  /** Milliseconds from opening to the server's close, or undefined if still open after `withinMs`. */
  async closedWithin(withinMs: number): Promise<number | undefined> {
    return Promise.race([this.closed, sleep(withinMs).then(() => undefined)]);
  }

  close(): void {
    this.socket.destroy();
  }

  /** Takes one whole answer off the front of what was received, if there is one. */
  private parse(): RawAnswer | undefined {
    const headEnd = this.received.indexOf('\r\n\r\n');
    if (headEnd === -1) return undefined;
    const [statusLine, ...lines] = this.received
      .subarray(0, headEnd)
      .toString('latin1')
      .split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
    const bodyStart = headEnd + 4;
    let body: Buffer;
    let end: number;
    if (headers['transfer-encoding'] === 'chunked') {
      const chunks = this.chunked(bodyStart);
      if (chunks === undefined) return undefined;
      ({ body, end } = chunks);
    } else if (headers['content-length'] !== undefined) {
      end = bodyStart + Number(headers['content-length']);
      if (this.received.length < end) return undefined;
      body = this.received.subarray(bodyStart, end);
    } else if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
      end = bodyStart;
      body = Buffer.alloc(0);
    } else {
      // No length and no chunks: the body runs to the close.
      if (!this.ended) return undefined;
      end = this.received.length;
      body = this.received.subarray(bodyStart);
    }
    this.received = this.received.subarray(end);
    return { status, headers, body: body.toString('utf8') };
  }

  /** A chunked body from `start`, once it has all arrived (trailers are not expected). */
  private chunked(start: number): { body: Buffer; end: number } | undefined {
    const parts: Buffer[] = [];
    let at = start;
    for (;;) {
      const lineEnd = this.received.indexOf('\r\n', at);
      if (lineEnd === -1) return undefined;
      const size = parseInt(this.received.subarray(at, lineEnd).toString('latin1'), 16);
      const dataEnd = lineEnd + 2 + size;
      if (this.received.length < dataEnd + 2) return undefined;
      if (size === 0) return { body: Buffer.concat(parts), end: dataEnd + 2 };
      parts.push(this.received.subarray(lineEnd + 2, dataEnd));
      at = dataEnd + 2;
    }
  }
}
