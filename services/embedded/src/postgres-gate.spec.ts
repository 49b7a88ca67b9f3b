import { connect } from 'node:net';
import { Client } from 'pg';
import { startPostgresGate, type PostgresGate } from './postgres-gate';

const PASSWORD = 'a-password-of-this-data-folder-0123456789';
/** AuthenticationOk then ReadyForQuery (idle): what a backend answers a trusted startup. */
const SIGNED_IN = Buffer.from([82, 0, 0, 0, 8, 0, 0, 0, 0, 90, 0, 0, 0, 5, 73]);

// The gate in front of PGlite's session. PGlite itself cannot load under Jest (it imports its
// WebAssembly dynamically), so the session here is a recorder that answers a startup as PGlite
// does; tests/integration/embedded-security and embedded run the real one.
describe('the embedded database behind its password', () => {
  let reached: Buffer[] = [];
  let gate: PostgresGate;

  beforeAll(async () => {
    gate = await startPostgresGate({
      password: PASSWORD,
      session: {
        execProtocolRawStream: (message, { onRawData }) => {
          reached.push(Buffer.from(message));
          onRawData(SIGNED_IN);
          return Promise.resolve();
        },
        isInTransaction: () => false,
        runExclusive: (work) => work(),
      },
      maxConnections: 8,
    });
  });

  beforeEach(() => {
    reached = [];
  });

  afterAll(async () => {
    await gate.stop();
  });

  async function signIn(password: string | undefined): Promise<string> {
    const [gateHost = '', gatePort = ''] = gate.address.split(':');
    const client = new Client({
      host: gateHost,
      port: Number(gatePort),
      user: 'postgres',
      database: 'postgres',
      ...(password === undefined ? {} : { password }),
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return 'signed in';
    } catch (error) {
      return (error as Error).message;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  it('joins a client with the password (SCRAM-SHA-256) to the database, startup and all', async () => {
    expect(await Promise.all([1, 2, 3].map(() => signIn(PASSWORD)))).toEqual([
      'signed in',
      'signed in',
      'signed in',
    ]);
    expect(reached).toHaveLength(3);
    expect(reached[0]?.readInt32BE(4)).toBe(196608);
    expect(reached[0]?.toString('latin1')).toContain('user\0postgres\0');
  });

  it('refuses a wrong password and no password, and the database never hears of them', async () => {
    expect(await signIn(`${PASSWORD}!`)).toBe('password authentication failed for user "postgres"');
    expect(await signIn(undefined)).toMatch(/client password must be a string/);
    expect(reached).toEqual([]);
  });

  it('never passes a query on before the password is proven', async () => {
    const [gateHost = '', gatePort = ''] = gate.address.split(':');
    const socket = connect(Number(gatePort), gateHost);
    const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + params.length, 0);
    startup.writeInt32BE(196608, 4);
    const sql = Buffer.from('SELECT 1\0');
    const queryMessage = Buffer.alloc(5);
    queryMessage.write('Q', 0);
    queryMessage.writeInt32BE(4 + sql.length, 1);
    socket.write(Buffer.concat([startup, params, queryMessage, sql]));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    await new Promise((resolve) => socket.on('close', resolve));
    // Asked for SCRAM (R, code 10), then refused (E, 28P01); the database saw nothing.
    expect(received[0]).toBe('R'.charCodeAt(0));
    expect(received.readInt32BE(5)).toBe(10);
    expect(received.toString('latin1')).toContain('28P01');
    expect(reached).toEqual([]);
  });
});
