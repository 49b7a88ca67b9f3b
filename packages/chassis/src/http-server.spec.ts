import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import {
  answerClientErrors,
  CLIENT_ERROR_MESSAGES,
  hasBody,
  limitRequestTimes,
} from './http-server';

/** What a connection to `server` receives for `written`, until the server closes it. */
async function exchange(
  server: Server,
  written: string,
): Promise<{ text: string; closedAfterMs: number }> {
  const { port } = server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  const began = Date.now();
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.write(written);
  await once(socket, 'close');
  return { text, closedAfterMs: Date.now() - began };
}

describe('hasBody', () => {
  const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

  it('sees a body in a Content-Length other than 0, or any Transfer-Encoding', () => {
    expect(hasBody(request({ 'content-length': '3' }))).toBe(true);
    expect(hasBody(request({ 'transfer-encoding': 'chunked' }))).toBe(true);
    expect(hasBody(request({ 'content-length': '0', 'transfer-encoding': 'chunked' }))).toBe(true);
    expect(hasBody(request({ 'content-length': '0' }))).toBe(false);
    expect(hasBody(request({}))).toBe(false);
  });
});

describe('a server with limitRequestTimes and answerClientErrors', () => {
  let server: Server;

  beforeAll(async () => {
    server = createServer((req, res) => {
      // Reads a body, then answers: what a slow body keeps waiting.
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    limitRequestTimes(server, { HEADERS_TIMEOUT_MS: 600, REQUEST_TIMEOUT_MS: 1_200 });
    answerClientErrors(server, { 'x-content-type-options': 'nosniff' });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });

  afterAll(() => server.close());

  const json = (status: string, message: string): unknown =>
    expect.stringMatching(
      new RegExp(
        `^HTTP/1\\.1 ${status}\\r\\ncontent-type: application/json; charset=utf-8\\r\\n` +
          `content-length: \\d+\\r\\nx-content-type-options: nosniff\\r\\nconnection: close\\r\\n\\r\\n` +
          `${JSON.stringify({ message }).replace(/[{}]/g, '\\$&')}$`,
      ),
    );

  it('answers a malformed request 400 and a head over 16 KB 431, in JSON', async () => {
    expect((await exchange(server, 'NOT HTTP\r\n\r\n')).text).toEqual(
      json('400 Bad Request', CLIENT_ERROR_MESSAGES.badRequest),
    );
    const big = `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`;
    expect((await exchange(server, big)).text).toEqual(
      json('431 Request Header Fields Too Large', CLIENT_ERROR_MESSAGES.headersTooLarge),
    );
  });

  it('closes a head not in within its limit, and a body not in within the request’s, with 408', async () => {
    const head = exchange(server, 'GET / HTTP/1.1\r\nHost: x\r\n');
    const body = exchange(server, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab');
    const [slowHead, slowBody] = await Promise.all([head, body]);
    for (const answer of [slowHead, slowBody]) {
      expect(answer.text).toEqual(json('408 Request Timeout', CLIENT_ERROR_MESSAGES.timedOut));
    }
    // Each after its own limit, within the second Node takes to look.
    expect(slowHead.closedAfterMs).toBeGreaterThanOrEqual(550);
    expect(slowHead.closedAfterMs).toBeLessThan(600 + 1_500);
    expect(slowBody.closedAfterMs).toBeGreaterThanOrEqual(1_150);
    expect(slowBody.closedAfterMs).toBeLessThan(1_200 + 1_500);
  });

  it('still answers a kept-alive connection’s second request that times out', async () => {
    const { text } = await exchange(
      server,
      'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n',
    );
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok/);
    expect(text).toContain(`HTTP/1.1 408 Request Timeout`);
  });
});
