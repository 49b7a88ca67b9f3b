import { connect } from 'node:net';

export interface RawRequest {
  method?: string;
  /** The request target exactly as written on the request line (any bytes, UTF-8). */
  target: string;
  /** Header lines as written, repeated names allowed, values unchecked. */
  headers?: readonly (readonly [string, string])[];
  /** A string is sent as UTF-8; bytes as they are. */
  body?: string | Uint8Array;
}

export interface RawResponse {
  /** The status; TIMED_OUT, or NO_ANSWER when the connection closed without one. */
  status: number;
  /** Header names in lower case; repeated headers keep every value. */
  headers: Map<string, string[]>;
  body: string;
  /** Bytes sent: a server may drop an oversized request before it is all written. */
  requestBytes: number;
}

export const TIMED_OUT = -1;
export const NO_ANSWER = 0;

interface Head {
  status: number;
  headers: Map<string, string[]>;
  bodyStart: number;
}

function parseHead(raw: Buffer): Head | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return { status: Number(statusLine.split(' ')[1]), headers, bodyStart: end + 4 };
}

/** The body once it is complete, or undefined while more is due. */
function completeBody(head: Head, raw: Buffer, method: string): Buffer | undefined {
  const rest = raw.subarray(head.bodyStart);
  if (method === 'HEAD' || head.status === 204 || head.status === 304 || head.status < 200) {
    return Buffer.alloc(0);
  }
  if (head.headers.get('transfer-encoding')?.some((value) => value.includes('chunked'))) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size)) return Buffer.concat(parts);
      if (size === 0) return Buffer.concat(parts);
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  const length = head.headers.get('content-length')?.[0];
  if (length === undefined) return undefined; // delimited by the close
  return rest.length >= Number(length) ? rest.subarray(0, Number(length)) : undefined;
}

/**
 * One HTTP/1.1 request over a fresh loopback connection, written byte for byte as given:
 * fetch and node:http refuse control characters and the like in targets and header values,
 * which is exactly what hostile clients send. Resolves with the first answer as soon as it is
 * complete; a server that does not answer in time yields TIMED_OUT.
 */
export function rawRequest(
  port: number,
  request: RawRequest,
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const method = request.method ?? 'GET';
  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
  const head =
    `${method} ${request.target} HTTP/1.1\r\n` +
    `Host: 127.0.0.1:${port}\r\n` +
    (request.headers ?? []).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    (body ? `Content-Length: ${body.length}\r\n` : '') +
    'Connection: close\r\n\r\n';
  const bytes = Buffer.concat([Buffer.from(head, 'utf8'), body ?? Buffer.alloc(0)]);
  return new Promise<RawResponse>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (status: number, headers = new Map<string, string[]>(), text = ''): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status, headers, body: text, requestBytes: bytes.length });
    };
    const timer = setTimeout(() => finish(TIMED_OUT), timeoutMs);
    const look = (closed: boolean): void => {
      const raw = Buffer.concat(chunks);
      const parsed = parseHead(raw);
      if (!parsed) {
        if (closed) finish(NO_ANSWER);
        return;
      }
      const content = completeBody(parsed, raw, method);
      if (content) finish(parsed.status, parsed.headers, content.toString('utf8'));
      else if (closed)
        finish(parsed.status, parsed.headers, raw.subarray(parsed.bodyStart).toString('utf8'));
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      look(false);
    });
    // A reset after the answer arrived changes nothing; before it, there was no answer.
    socket.on('error', () => look(true));
    socket.on('close', () => look(true));
    socket.write(bytes);
  });
}

export function header(response: RawResponse, name: string): string | undefined {
  return response.headers.get(name)?.[0];
}
