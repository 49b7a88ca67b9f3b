import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as it reached a stand-in upstream. */
export interface Captured {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Capture {
  /** http://127.0.0.1:{port} */
  url: string;
  /** 127.0.0.1:{port}, as a proxy names an upstream. */
  address: string;
  seen: Captured[];
  server: Server;
}

/**
 * A plain HTTP server standing in for an upstream: it records every request that reaches
 * it, whole body read, then answers with `answer` (by default 200 `{}`).
 */
export async function startCapture(
  answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  },
): Promise<Capture> {
  const seen: Captured[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      answer(req, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `http://${address}`, address, seen, server };
}
