import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { SharedSession, type ProtocolSession } from './shared-session';

/**
 * The embedded database's door: a loopback TCP port speaking the start of the PostgreSQL
 * protocol, which asks every client for the password (SCRAM-SHA-256, as PostgreSQL does)
 * and only then serves it from PGlite's session, in turns with the others (shared-session.ts).
 * PGlite itself trusts whoever connects, and any local user can connect to a loopback port.
 */

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
const MECHANISM = 'SCRAM-SHA-256';
const ITERATIONS = 4096;
/** Nothing a client sends before it is signed in is longer (PostgreSQL allows 10,000). */
const MAX_AUTH_MESSAGE = 10_000;
const AUTH_TIMEOUT_MS = 10_000;

interface ScramKeys {
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}

function scramKeys(password: string): ScramKeys {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, ITERATIONS, 32, 'sha256');
  return {
    salt,
    storedKey: createHash('sha256').update(hmac(salted, 'Client Key')).digest(),
    serverKey: hmac(salted, 'Server Key'),
  };
}

/** An authentication request ('R') of the given code with its payload. */
function authentication(code: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const message = Buffer.alloc(9 + payload.length);
  message.write('R', 0);
  message.writeInt32BE(8 + payload.length, 1);
  message.writeInt32BE(code, 5);
  payload.copy(message, 9);
  return message;
}

function fatal(code: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0\0`);
  const message = Buffer.alloc(5 + fields.length);
  message.write('E', 0);
  message.writeInt32BE(4 + fields.length, 1);
  fields.copy(message, 5);
  return message;
}

/** A typed message ('p') from the front of the buffer, or null until it is all there. */
function typedMessage(buffer: Buffer): { type: string; body: Buffer; size: number } | null {
  if (buffer.length < 5) return null;
  const length = buffer.readInt32BE(1);
  if (length < 4 || length > MAX_AUTH_MESSAGE) throw new Error('message too long');
  if (buffer.length < 1 + length) return null;
  return {
    type: String.fromCharCode(buffer[0] ?? 0),
    body: buffer.subarray(5, 1 + length),
    size: 1 + length,
  };
}

/** "a=1,b=2" → {a: '1', b: '2'} (values may hold '='). */
function attributes(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at > 0) found.set(part.slice(0, at), part.slice(at + 1));
  }
  return found;
}

type Step =
  | { kind: 'startup' }
  | { kind: 'first'; startup: Buffer; user: string }
  | { kind: 'final'; startup: Buffer; user: string; nonce: string; authStart: string };

/** Runs the exchange for one client; calls `open` with what to send on once it is signed in. */
function authenticate(
  client: Socket,
  keys: ScramKeys,
  open: (startup: Buffer, rest: Buffer) => void,
): void {
  let buffer = Buffer.alloc(0);
  let step: Step = { kind: 'startup' };
  const timer = setTimeout(() => client.destroy(), AUTH_TIMEOUT_MS);
  const refuse = (code: string, text: string): void => {
    clearTimeout(timer);
    client.off('data', onData);
    client.end(fatal(code, text));
  };

  const advance = (): void => {
    for (;;) {
      if (step.kind === 'startup') {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (length < 8 || length > MAX_AUTH_MESSAGE)
          return refuse('08P01', 'invalid startup packet');
        if (buffer.length < length) return;
        const code = buffer.readInt32BE(4);
        const message = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          client.write('N'); // no encryption on loopback; ask again in plain text
          continue;
        }
        if (code === CANCEL_REQUEST) return refuse('0A000', 'cancel requests are not supported');
        if (code !== PROTOCOL_3) return refuse('08P01', 'unsupported frontend protocol');
        const fields = message.subarray(8).toString('utf8').split('\0');
        const user = fields[fields.indexOf('user') + 1] ?? '';
        step = { kind: 'first', startup: Buffer.from(message), user };
        client.write(authentication(10, Buffer.from(`${MECHANISM}\0\0`)));
        continue;
      }
      const message = typedMessage(buffer);
      if (message === null) return;
      buffer = buffer.subarray(message.size);
      const failed = `password authentication failed for user "${step.user}"`;
      if (message.type !== 'p') return refuse('28P01', failed);

      if (step.kind === 'first') {
        const end = message.body.indexOf(0);
        const mechanism = message.body.subarray(0, Math.max(end, 0)).toString();
        if (end < 0 || mechanism !== MECHANISM || message.body.length < end + 5) {
          return refuse('28000', `${MECHANISM} is the only authentication offered`);
        }
        const clientFirst = message.body.subarray(end + 5).toString();
        // No channel binding: the client said it does not support it ('n') or we lack it ('y').
        if (!clientFirst.startsWith('n,,') && !clientFirst.startsWith('y,,')) {
          return refuse('28000', 'channel binding is not supported');
        }
        const clientFirstBare = clientFirst.slice(3);
        const clientNonce = attributes(clientFirstBare).get('r');
        if (!clientNonce) return refuse('08P01', 'malformed SCRAM message');
        const nonce = clientNonce + randomBytes(18).toString('base64');
        const serverFirst = `r=${nonce},s=${keys.salt.toString('base64')},i=${ITERATIONS}`;
        step = {
          ...step,
          kind: 'final',
          nonce,
          authStart: `${clientFirstBare},${serverFirst},`,
        };
        client.write(authentication(11, Buffer.from(serverFirst)));
        continue;
      }

      const clientFinal = message.body.toString();
      const proofAt = clientFinal.lastIndexOf(',p=');
      const fields = attributes(clientFinal);
      const proof = Buffer.from(fields.get('p') ?? '', 'base64');
      if (proofAt < 0 || fields.get('r') !== step.nonce || proof.length !== 32) {
        return refuse('28P01', failed);
      }
      const authMessage = step.authStart + clientFinal.slice(0, proofAt);
      const signature = hmac(keys.storedKey, authMessage);
      const clientKey = Buffer.from(proof.map((byte, i) => byte ^ (signature[i] ?? 0)));
      const stored = createHash('sha256').update(clientKey).digest();
      if (!timingSafeEqual(stored, keys.storedKey)) return refuse('28P01', failed);

      clearTimeout(timer);
      client.off('data', onData);
      client.write(
        authentication(
          12,
          Buffer.from(`v=${hmac(keys.serverKey, authMessage).toString('base64')}`),
        ),
      );
      return open(step.startup, buffer);
    }
  };

  function onData(chunk: Buffer): void {
    buffer = Buffer.concat([buffer, chunk]);
    try {
      advance();
    } catch {
      refuse('08P01', 'invalid message');
    }
  }
  client.on('data', onData);
  client.on('error', () => client.destroy());
  client.on('close', () => clearTimeout(timer));
}

export interface PostgresGate {
  /** "127.0.0.1:port" */
  address: string;
  stop(): Promise<void>;
}

/**
 * Listens on a loopback port; a client that proves it knows `password` is served from
 * `session` (PGlite) as if it had a server of its own. stop() closes every connection and
 * resolves once the session is left as they found it.
 */
export async function startPostgresGate(options: {
  password: string;
  session: ProtocolSession;
  maxConnections: number;
}): Promise<PostgresGate> {
  const keys = scramKeys(options.password);
  const shared = new SharedSession(options.session);
  const clients = new Set<Socket>();
  const server = createServer((client) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    authenticate(client, keys, (startup, rest) => void shared.serve(client, startup, rest));
  });
  server.maxConnections = options.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    address: `127.0.0.1:${port}`,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const client of clients) client.destroy();
      await closed;
      await shared.settled();
    },
  };
}
