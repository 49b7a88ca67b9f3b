import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SharedSession, type ProtocolSession } from './shared-session';

// The turns connections take with one session. PGlite cannot load under Jest (it imports its
// WebAssembly dynamically), so the session here keeps what a real one keeps between messages
// (the unnamed statement, an open transaction) and answers each message after a real pause,
// in which other connections' messages arrive: tests/integration/embedded.int-spec.ts runs
// the same cases against PGlite.

/** A frontend message: its type, its length, a text body. */
const message = (type: string, text = ''): Buffer => {
  const body = text === '' ? Buffer.alloc(0) : Buffer.from(`${text}\0`);
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};
const STARTUP = (() => {
  const params = Buffer.from('user\0postgres\0\0');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + params.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, params]);
})();

/** One session: what ran, in order, and what each message answered. */
class RecordingSession implements ProtocolSession {
  readonly ran: string[] = [];
  private unnamed = '';
  private inTransaction = false;
  failOn = '';

  async execProtocolRawStream(
    bytes: Uint8Array,
    { onRawData }: { onRawData: (data: Uint8Array) => void },
  ): Promise<void> {
    // As PGlite writing its files: the event loop turns meanwhile.
    await sleep(5);
    const frame = Buffer.from(bytes);
    if (frame.readInt32BE(0) === frame.length) {
      onRawData(Buffer.from('ready;'));
      return;
    }
    const type = String.fromCharCode(frame[0] ?? 0);
    const text = frame.subarray(5).toString().replace(/\0$/, '');
    if (text !== '' && text === this.failOn) throw new Error('the session failed');
    this.ran.push(type === 'B' ? `B ${this.unnamed}` : text === '' ? type : `${type} ${text}`);
    if (type === 'P') this.unnamed = text;
    if (type === 'B') onRawData(Buffer.from(`bound ${this.unnamed};`));
    if (type === 'Q' && text === 'BEGIN') this.inTransaction = true;
    if (type === 'Q' && (text === 'COMMIT' || text === 'ROLLBACK')) this.inTransaction = false;
    if (type === 'S' || type === 'Q') onRawData(Buffer.from(`done ${text || type};`));
  }

  isInTransaction(): boolean {
    return this.inTransaction;
  }

  runExclusive<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }
}

describe('connections taking turns with one session', () => {
  let session: RecordingSession;
  let shared: SharedSession;
  let server: Server;
  let port: number;
  const opened: Socket[] = [];

  beforeEach(async () => {
    session = new RecordingSession();
    shared = new SharedSession(session);
    server = createServer((socket) => {
      // The gate hands a connection over once it has signed in, with its startup message.
      socket.once('data', (startup: Buffer) => {
        socket.pause();
        void shared.serve(
          socket,
          startup.subarray(0, STARTUP.length),
          startup.subarray(STARTUP.length),
        );
        socket.resume();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  });

  afterEach(async () => {
    for (const socket of opened.splice(0)) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    await shared.settled();
  });

  /** A signed-in connection: what it has been answered so far, and a wait for more. */
  async function client() {
    const socket = connect(port, '127.0.0.1');
    opened.push(socket);
    let answered = '';
    socket.on('data', (chunk: Buffer) => (answered += chunk.toString()));
    socket.write(STARTUP);
    const until = async (text: string) => {
      const deadline = Date.now() + 5000;
      while (!answered.includes(text)) {
        if (Date.now() > deadline) throw new Error(`no '${text}' in '${answered}'`);
        await sleep(5);
      }
      return answered;
    };
    await until('ready;');
    return { socket, until, answered: () => answered };
  }

  it("runs a connection's query whole, though another's messages come in between", async () => {
    const a = await client();
    const b = await client();
    a.socket.write(Buffer.concat([message('P', 'a'), message('H')]));
    // a's unit has begun: its messages ran.
    while (!session.ran.includes('H')) await sleep(5);
    b.socket.write(Buffer.concat([message('P', 'b'), message('B'), message('E'), message('S')]));
    await sleep(30);
    expect(b.answered()).not.toContain('done');
    a.socket.write(Buffer.concat([message('B'), message('E'), message('S')]));
    expect(await a.until('done S;')).toContain('bound a;');
    expect(await b.until('done S;')).toContain('bound b;');
    expect(session.ran).toEqual(['P a', 'H', 'B a', 'E', 'S', 'P b', 'B b', 'E', 'S']);
  });

  it('keeps a transaction to its connection, and rolls it back when the connection goes', async () => {
    const a = await client();
    const b = await client();
    a.socket.write(message('Q', 'BEGIN'));
    await a.until('done BEGIN;');
    b.socket.write(message('Q', 'SELECT b'));
    a.socket.write(message('Q', 'INSERT a'));
    await a.until('done INSERT a;');
    expect(b.answered()).not.toContain('done SELECT b;');
    a.socket.destroy();
    await b.until('done SELECT b;');
    expect(session.ran).toEqual(['Q BEGIN', 'Q INSERT a', 'Q ROLLBACK', 'Q SELECT b']);
  });

  it('ends the query of a connection that goes away in its middle before the next one', async () => {
    const a = await client();
    a.socket.write(Buffer.concat([message('P', 'a'), message('H')]));
    while (!session.ran.includes('H')) await sleep(5);
    a.socket.destroy();
    const b = await client();
    b.socket.write(Buffer.concat([message('P', 'b'), message('B'), message('S')]));
    expect(await b.until('done S;')).toContain('bound b;');
    expect(session.ran).toEqual(['P a', 'H', 'S', 'P b', 'B b', 'S']);
  });

  it('closes a connection whose message the session fails, and the others go on', async () => {
    session.failOn = 'boom';
    const a = await client();
    const b = await client();
    const closed = once(a.socket, 'close');
    a.socket.write(Buffer.concat([message('P', 'boom'), message('S')]));
    await sleep(10);
    b.socket.write(message('Q', 'SELECT b'));
    await closed;
    await b.until('done SELECT b;');
    // The failed unit was ended for it (a Sync) before the next connection's turn.
    expect(session.ran).toEqual(['S', 'Q SELECT b']);
  });

  it('passes a Terminate on to nobody: the connection just ends', async () => {
    const a = await client();
    const closed = once(a.socket, 'close');
    a.socket.end(message('X'));
    await closed;
    const b = await client();
    b.socket.write(message('Q', 'SELECT b'));
    await b.until('done SELECT b;');
    expect(session.ran).toEqual(['Q SELECT b']);
  });
});
