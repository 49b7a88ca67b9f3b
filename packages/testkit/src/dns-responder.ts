import { createSocket, type Socket } from 'node:dgram';

/**
 * A DNS server on a loopback UDP port answering TXT questions from what a test sets: the
 * records of a name (NOERROR with them), NODATA for a name set without records or asked
 * another type, NXDOMAIN for the rest. Enough for a resolver's questions, nothing more.
 */
export interface DnsResponder {
  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  readonly server: string;
  /** The TXT records of `name` from now on (none: the name exists, without TXT). */
  setTxt(name: string, records: readonly string[]): void;
  stop(): Promise<void>;
}

const TXT = 16;
const NXDOMAIN = 3;

/** The question's name (lower case) and where the question section ends. */
function readQuestion(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  for (let length = query[at]!; length > 0; length = query[at]!) {
    labels.push(query.toString('latin1', at + 1, at + 1 + length));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

/** One TXT answer: a pointer to the question's name, then the record in strings of 255. */
function txtAnswer(record: string): Buffer {
  const bytes = Buffer.from(record, 'utf8');
  const strings: Buffer[] = [];
  for (let at = 0; at < bytes.length || strings.length === 0; at += 255) {
    const part = bytes.subarray(at, at + 255);
    strings.push(Buffer.from([part.length]), part);
  }
  const data = Buffer.concat(strings);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0);
  head.writeUInt16BE(TXT, 2);
  head.writeUInt16BE(1, 4); // IN
  head.writeUInt32BE(0, 6); // TTL: nothing kept between tries
  head.writeUInt16BE(data.length, 10);
  return Buffer.concat([head, data]);
}

function answer(query: Buffer, records: ReadonlyMap<string, readonly string[]>): Buffer {
  const { name, type, end } = readQuestion(query);
  const known = records.get(name);
  const answers = known !== undefined && type === TXT ? known.map(txtAnswer) : [];
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the id
  // QR, the query's opcode and RD, AA and RA; NXDOMAIN for a name not set.
  const flags = 0x8480 | (query.readUInt16BE(2) & 0x7900) | (known ? 0 : NXDOMAIN);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(12, end), ...answers]);
}

export async function startDnsResponder(): Promise<DnsResponder> {
  const records = new Map<string, readonly string[]>();
  const socket: Socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    let reply: Buffer;
    try {
      reply = answer(query, records);
    } catch {
      return; // not a question this reads: left unanswered, as a server drops garbage
    }
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    setTxt: (name, txt) => records.set(name.toLowerCase(), txt),
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
