import type { Socket } from 'node:net';

/**
 * PGlite is one PostgreSQL session, and the embedded mode's services open many connections
 * to it (each has a pool). What a session keeps between messages is then everyone's: the
 * unnamed statement and portal of a query with parameters (Parse, Bind, Execute, Sync), the
 * error state that skips messages until a Sync, an open transaction. So connections take
 * turns: one holds the session from its first message until a unit ends (a Sync or a simple
 * Query, answered by ReadyForQuery) outside a transaction, and a transaction keeps it to the
 * end. PGlite's own socket server turns per message and keeps only transactions together:
 * another connection's Parse between a Parse and its Bind answered with a refusal or, when the
 * shapes allowed, with that other query's rows (electric-sql/pglite#1046). COPY is not used
 * by the services and has no rule here: its data messages would need the turn kept too.
 */
export interface ProtocolSession {
  /** Runs one frontend message; its answer comes in pieces to `onRawData`. */
  execProtocolRawStream(
    message: Uint8Array,
    options: { onRawData: (data: Uint8Array) => void },
  ): Promise<void>;
  /** Inside BEGIN ... COMMIT (or a failed one, until its ROLLBACK). */
  isInTransaction(): boolean;
  runExclusive<T>(work: () => Promise<T>): Promise<T>;
}

/** Whose turn it is with the session; the others wait in the order they asked. */
class Turns {
  private holder: object | null = null;
  private readonly waiting: Array<{ who: object; begin: (granted: boolean) => void }> = [];

  /** Resolves true once it is `who`'s turn, or false if `who` withdrew first. */
  take(who: object): Promise<boolean> {
    if (this.holder === who) return Promise.resolve(true);
    if (this.holder === null) {
      this.holder = who;
      return Promise.resolve(true);
    }
    return new Promise((begin) => this.waiting.push({ who, begin }));
  }

  holds(who: object): boolean {
    return this.holder === who;
  }

  /** Passes the turn on; from one still waiting, withdraws its place instead. */
  give(who: object): void {
    if (this.holder !== who) {
      const at = this.waiting.findIndex((entry) => entry.who === who);
      if (at >= 0) this.waiting.splice(at, 1)[0]?.begin(false);
      return;
    }
    const next = this.waiting.shift();
    this.holder = next?.who ?? null;
    next?.begin(true);
  }
}

const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);
const ROLLBACK = (() => {
  const sql = Buffer.from('ROLLBACK\0');
  const head = Buffer.alloc(5);
  head.write('Q', 0);
  head.writeInt32BE(4 + sql.length, 1);
  return Buffer.concat([head, sql]);
})();
/** Messages whose answer ends with ReadyForQuery: Sync, and a simple Query. */
const ENDS_UNIT = new Set(['S', 'Q']);
const TERMINATE = 'X';

/** Serves signed-in connections from one session, in turns. */
export class SharedSession {
  private readonly turns = new Turns();
  private readonly serving = new Set<Promise<void>>();

  constructor(private readonly session: ProtocolSession) {}

  /**
   * Serves `client` from its startup message on (`rest`: what it sent after it); resolves
   * once the client is gone and the session is left as it found it.
   */
  serve(client: Socket, startup: Buffer, rest: Buffer): Promise<void> {
    const done = this.connection(client, startup, rest);
    this.serving.add(done);
    void done.finally(() => this.serving.delete(done));
    return done;
  }

  /** Resolves once every connection served so far has been wound up. */
  async settled(): Promise<void> {
    await Promise.all([...this.serving]);
  }

  private connection(client: Socket, startup: Buffer, rest: Buffer): Promise<void> {
    const me = {};
    const queue: Buffer[] = [startup];
    let buffer: Buffer = Buffer.alloc(0);
    let gone = false;
    /** A unit begun and not yet ended: the session must get a Sync before anyone else. */
    let midUnit = false;
    let draining: Promise<void> | null = null;
    client.setNoDelay(true);

    const run = async (message: Buffer, answer: boolean): Promise<void> => {
      const pieces: Buffer[] = [];
      await this.session.runExclusive(() =>
        this.session.execProtocolRawStream(message, {
          onRawData: (data) => {
            if (answer) pieces.push(Buffer.from(data));
          },
        }),
      );
      if (answer && pieces.length > 0 && !client.destroyed) client.write(Buffer.concat(pieces));
    };

    const drain = async (): Promise<void> => {
      while (queue.length > 0 && !gone) {
        const message = queue.shift() as Buffer;
        // Gone while it waited or ran: leave() winds up what it holds.
        if (!(await this.turns.take(me)) || gone) return;
        midUnit = true; // until its answer says otherwise: a message that fails is ended too
        await run(message, true);
        const type = message === startup ? 'startup' : String.fromCharCode(message[0] ?? 0);
        midUnit = type !== 'startup' && !ENDS_UNIT.has(type);
        if (!midUnit && !this.session.isInTransaction()) this.turns.give(me);
      }
    };

    const pump = (): void => {
      if (draining) return;
      draining = drain()
        .catch(() => {
          client.destroy();
        })
        .finally(() => {
          draining = null;
          if (queue.length > 0 && !gone) pump();
        });
    };

    return new Promise<void>((resolve) => {
      const onData = (chunk: Buffer): void => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        while (buffer.length >= 5) {
          const length = buffer.readInt32BE(1);
          if (length < 4) {
            client.destroy();
            return;
          }
          if (buffer.length < 1 + length) break;
          const message = buffer.subarray(0, 1 + length);
          buffer = buffer.subarray(1 + length);
          if (String.fromCharCode(message[0] ?? 0) === TERMINATE) {
            client.end();
            return;
          }
          queue.push(message);
        }
        pump();
      };

      // Gone: what it began is ended (a Sync) and what it left open rolled back, so that the
      // next connection finds the session as if this one had never been.
      const leave = async (): Promise<void> => {
        gone = true;
        client.off('data', onData);
        if (!this.turns.holds(me)) this.turns.give(me);
        await draining;
        if (!this.turns.holds(me)) return;
        try {
          if (midUnit) await run(SYNC, false);
          if (this.session.isInTransaction()) await run(ROLLBACK, false);
        } finally {
          this.turns.give(me);
        }
      };

      client.on('data', onData);
      client.on('error', () => client.destroy());
      client.once('close', () => {
        void leave()
          .catch(() => undefined)
          .finally(resolve);
      });
      if (rest.length > 0) onData(rest);
      else pump();
    });
  }
}
