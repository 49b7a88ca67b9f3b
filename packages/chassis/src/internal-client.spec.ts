import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { INTERNAL_TOKEN_HEADER, internalApi } from '@shortener/contracts';
import { verifyInternalToken } from './internal-auth';
import {
  InternalAnswerError,
  InternalClient,
  InternalRequestError,
  InternalServiceError,
} from './internal-client';

const SECRET = 'a-test-secret-of-32-characters!!';

interface Seen {
  method: string;
  url: string;
  body: string;
  userId: string | null | undefined;
}

/** A callee that answers every request with the status and raw text it is given. */
class Callee {
  answer: { status: number; text: string } = { status: 200, text: '{}' };
  seen: Seen[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const token = verifyInternalToken(SECRET, req.headers[INTERNAL_TOKEN_HEADER] as string, {
          method: req.method ?? '',
          path: req.url ?? '',
          body: body === '' ? undefined : body,
        });
        this.seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          body,
          userId: token?.identity.userId,
        });
        res.statusCode = this.answer.status;
        if (this.answer.text !== '') res.setHeader('content-type', 'application/json');
        res.end(this.answer.text);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }

  answers(status: number, body?: unknown): void {
    this.answer = { status, text: body === undefined ? '' : JSON.stringify(body) };
  }
}

describe('InternalClient.call', () => {
  const callee = new Callee();
  let client: InternalClient;

  beforeAll(async () => {
    client = new InternalClient('links', await callee.start(), SECRET);
  });
  afterAll(() => callee.stop());
  beforeEach(() => {
    callee.seen = [];
  });

  it('signs the call for the caller, fills the route and returns the answer as parsed', async () => {
    callee.answers(200, { url: 'https://example.com/', expiresAt: 42, extra: 'dropped' });
    const answer = await client.call(internalApi.resolveLink, {
      params: { code: 'AbC1234' },
      identity: { userId: 'user-1' },
    });
    expect(answer).toEqual({ status: 200, body: { url: 'https://example.com/', expiresAt: 42 } });
    expect(callee.seen).toEqual([
      { method: 'GET', url: '/internal/resolve/AbC1234', body: '', userId: 'user-1' },
    ]);
  });

  it('percent-encodes path parameters and sends only the query values given', async () => {
    callee.answers(200, { visits: [], nextCursor: null });
    await client.call(internalApi.visitsPage, {
      params: { code: 'a/b?c' },
      query: { limit: 50 },
    });
    expect(callee.seen[0]?.url).toBe('/internal/visits/a%2Fb%3Fc?limit=50');
  });

  it('parses each expected status by its own schema', async () => {
    callee.answers(404, { message: 'Url not found', statusCode: 404 });
    expect(await client.call(internalApi.resolveLink, { params: { code: 'AbC1234' } })).toEqual({
      status: 404,
      body: { message: 'Url not found' },
    });
    callee.answers(204);
    expect(await client.call(internalApi.deleteLink, { params: { code: 'AbC1234' } })).toEqual({
      status: 204,
      body: undefined,
    });
  });

  it.each([
    ['a field of the wrong type', { url: 'https://example.com/', expiresAt: '99999999999999' }],
    ['a missing field', { expiresAt: 42 }],
    ['no object at all', ['https://example.com/', 42]],
    ['no body', undefined],
  ])('refuses an answer with %s: InternalAnswerError, not the body', async (_what, body) => {
    callee.answers(200, body);
    const call = client.call(internalApi.resolveLink, { params: { code: 'AbC1234' } });
    await expect(call).rejects.toThrow(InternalAnswerError);
    await expect(call).rejects.toMatchObject({
      service: 'links',
      call: 'GET /internal/resolve/:code',
      status: 200,
    });
  });

  it('refuses an error answer without its message', async () => {
    callee.answers(404, { error: 'Not Found' });
    await expect(
      client.call(internalApi.resolveLink, { params: { code: 'AbC1234' } }),
    ).rejects.toThrow(InternalAnswerError);
  });

  it('refuses a status the endpoint does not list', async () => {
    callee.answers(500, { message: 'boom' });
    await expect(
      client.call(internalApi.resolveLink, { params: { code: 'AbC1234' } }),
    ).rejects.toThrow(/answered 500: not expected/);
  });

  it('sends the body as its schema reads it, and refuses to send one that breaks it', async () => {
    callee.answers(200, { counts: {} });
    await client.call(internalApi.visitCounts, { body: { codes: ['AbC1234'] } });
    expect(callee.seen[0]).toMatchObject({
      method: 'POST',
      url: '/internal/visit-counts',
      body: '{"codes":["AbC1234"]}',
    });
    const tooMany = Array.from({ length: 1001 }, () => 'AbC1234');
    await expect(
      client.call(internalApi.visitCounts, { body: { codes: tooMany } }),
    ).rejects.toThrow(InternalRequestError);
    expect(callee.seen).toHaveLength(1);
  });

  it('is typed by the endpoint: its parameters, its body, and each answer by its status', () => {
    // Checked by the compiler, never run.
    const typed = async () => {
      // @ts-expect-error a route with :code takes its value
      await client.call(internalApi.resolveLink, {});
      // @ts-expect-error visit-counts takes a body
      await client.call(internalApi.visitCounts, {});
      // @ts-expect-error of its schema's shape
      await client.call(internalApi.visitCounts, { body: { codes: 'AbC1234' } });
      // @ts-expect-error listing takes no body
      await client.call(internalApi.listLinks, { body: {} });
      const answer = await client.call(internalApi.getLink, { params: { code: 'AbC1234' } });
      if (answer.status === 404) return answer.body.message;
      // @ts-expect-error an InternalLink has no message
      return String(answer.body.message);
    };
    expect(typeof typed).toBe('function');
  });

  it('reports an unreachable service as InternalServiceError', async () => {
    const nowhere = new InternalClient('auth', 'http://127.0.0.1:9', SECRET);
    await expect(
      nowhere.call(internalApi.lookUpSession, { body: { sessionId: 'x' } }),
    ).rejects.toThrow(InternalServiceError);
  });

  it('gives up on a callee past its deadline, whether it never answers or stops mid-body', async () => {
    const sockets = new Set<Socket>();
    const stalling = createServer((req, res) => {
      if (req.url?.includes('Half')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"urlID":');
      }
      // and then nothing more
    });
    stalling.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`;
    const impatient = new InternalClient('links', url, SECRET, 200);
    try {
      for (const code of ['Quiet12', 'Half123']) {
        const began = Date.now();
        await expect(impatient.call(internalApi.resolveLink, { params: { code } })).rejects.toThrow(
          InternalServiceError,
        );
        expect(Date.now() - began).toBeLessThan(2000);
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => stalling.close(resolve));
    }
  });

  it('reports an answer that is not JSON as InternalServiceError', async () => {
    callee.answer = { status: 200, text: '<html>' };
    await expect(
      client.call(internalApi.resolveLink, { params: { code: 'AbC1234' } }),
    ).rejects.toThrow(InternalServiceError);
  });
});
