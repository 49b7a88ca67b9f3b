import {
  Agent,
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import pino from 'pino';
import { securityHeaderValues } from '../edge/security-headers';
import {
  inFront,
  redirectFastPath,
  redirectPath,
  type RedirectFastPath,
} from './redirect-fast-path';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe('redirectPath: the request targets Express would route to /r/', () => {
  it.each([
    ['/r/AbC1234', '/r/AbC1234'],
    ['/R/AbC1234?x=/R/', '/r/AbC1234?x=/R/'],
    ['/r/', '/r/'],
    ['http://host/r/AbC1234', '/r/AbC1234'],
    ['HTTPS://host:8080/R/AbC1234?q', '/r/AbC1234?q'],
  ])('takes %s as %s', (target, path) => expect(redirectPath(target)).toBe(path));

  it.each(['/', '/r', '/rr/x', '//r/x', '/api/r/x', 'http://host', 'http://host?/r/x', '*', 'r/x'])(
    'leaves %s to the app',
    (target) => expect(redirectPath(target)).toBeUndefined(),
  );
});

describe('the /r/ fast path', () => {
  const servers: Server[] = [];
  let seen: Array<{ url: string; method: string; headers: IncomingHttpHeaders; port: number }>;
  let gateway: string;
  let fallback: string[];
  let fastPath: RedirectFastPath;
  /** Upstream requests to /r/silent, which are never answered: closed when cancelled. */
  let silent: IncomingMessage[];

  beforeAll(async () => {
    seen = [];
    fallback = [];
    silent = [];
    const upstream = createServer((req, res) => {
      seen.push({
        url: req.url ?? '',
        method: req.method ?? '',
        headers: req.headers,
        port: req.socket.remotePort ?? 0,
      });
      if (req.url === '/r/silent') {
        silent.push(req);
        return;
      }
      if (req.url === '/r/closing') {
        // About this connection only: the client's own stays open.
        res.writeHead(302, {
          location: 'https://example.com/',
          connection: 'close',
          'keep-alive': 'timeout=99',
        });
        res.end();
        return;
      }
      if (req.url === '/r/page') {
        res.writeHead(404, { 'content-type': 'text/html', 'x-frame-options': 'SAMEORIGIN' });
        res.end('<p>No such link</p>');
        return;
      }
      res.writeHead(302, { location: 'https://example.com/', 'x-from': 'redirect' });
      res.end();
    });
    servers.push(upstream);
    const target = await listen(upstream);
    const front = createServer((req, res) => {
      fallback.push(`${req.method} ${req.url}`);
      res.writeHead(404);
      res.end();
    });
    fastPath = redirectFastPath({
      target,
      trustedProxies: ['loopback'],
      logger: pino({ level: 'silent' }),
      answerHeaders: securityHeaderValues('http://localhost:8080'),
      timeoutMs: 1_000,
    });
    inFront(front, fastPath);
    servers.push(front);
    gateway = await listen(front);
  });

  afterAll(async () => {
    await fastPath.close();
    for (const server of servers) server.closeAllConnections();
    for (const server of servers) server.close();
  });

  it('passes GET, HEAD and POST (a password form) /r/ on as they are, answers as they come, the rest to the app', async () => {
    const answer = await fetch(`${gateway}/r/AbC1234?utm=1`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('https://example.com/');
    expect(answer.headers.get('x-from')).toBe('redirect');
    // The gateway's security headers, as on every answer it gives, and a request id.
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      (await fetch(`${gateway}/r/AbC1234`, { method: 'HEAD', redirect: 'manual' })).status,
    ).toBe(302);
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'GET /r/AbC1234?utm=1',
      'HEAD /r/AbC1234',
    ]);
    await fetch(`${gateway}/r/AbC1234`, { method: 'POST', body: 'password=x', redirect: 'manual' });
    await fetch(`${gateway}/r/AbC1234`, { method: 'PUT' });
    await fetch(`${gateway}/api/user`);
    expect(seen.map(({ method, url }) => `${method} ${url}`).slice(2)).toEqual(['POST /r/AbC1234']);
    expect(fallback).toEqual(['PUT /r/AbC1234', 'GET /api/user']);
  });

  it('says who the visitor is as TRUSTED_PROXIES resolves it, and drops what only we may say', async () => {
    seen.length = 0;
    await fetch(`${gateway}/r/AbC1234`, {
      redirect: 'manual',
      headers: {
        'x-forwarded-for': '203.0.113.9',
        'x-internal-token': 'forged',
        'x-forwarded-host': 'evil.example',
        'user-agent': 'test-agent',
        referer: 'https://ref.example/',
      },
    });
    const [forwarded] = seen;
    // Loopback is trusted here, so the header's address is the visitor's.
    expect(forwarded?.headers['x-forwarded-for']).toBe('203.0.113.9');
    expect(forwarded?.headers['x-internal-token']).toBeUndefined();
    expect(forwarded?.headers['x-forwarded-host']).toBeUndefined();
    expect(forwarded?.headers['user-agent']).toBe('test-agent');
    expect(forwarded?.headers['referer']).toBe('https://ref.example/');
    expect(forwarded?.headers['x-request-id']).toBeDefined();
  });

  it("passes on only what the redirect service reads: not the visitor's cookies or credentials", async () => {
    seen.length = 0;
    await fetch(`${gateway}/r/AbC1234`, {
      redirect: 'manual',
      headers: {
        'user-agent': 'test-agent',
        referer: 'https://ref.example/',
        cookie: 'sid=secret-session',
        authorization: 'Bearer secret-token',
        'accept-language': 'en-GB',
        'sec-fetch-site': 'cross-site',
        'x-request-id': 'visitor-request-1',
      },
    });
    const [forwarded] = seen;
    expect(Object.keys(forwarded?.headers ?? {}).sort()).toEqual([
      'connection',
      'host',
      'referer',
      'user-agent',
      'x-forwarded-for',
      'x-request-id',
    ]);
    expect(forwarded?.headers['x-request-id']).toBe('visitor-request-1');
  });

  it('keeps its connections to the redirect service alive between redirects', async () => {
    seen.length = 0;
    for (let i = 0; i < 5; i += 1) await fetch(`${gateway}/r/AbC1234`, { redirect: 'manual' });
    expect(new Set(seen.map(({ port }) => port)).size).toBe(1);
  });

  it('answers 502 Server error when the redirect service cannot be reached', async () => {
    const front = createServer((_req, res) => res.end());
    inFront(
      front,
      redirectFastPath({
        target: 'http://127.0.0.1:1',
        trustedProxies: [],
        logger: pino({ level: 'silent' }),
      }),
    );
    servers.push(front);
    const answer = await fetch(`${await listen(front)}/r/AbC1234`, { redirect: 'manual' });
    expect(answer.status).toBe(502);
    expect(await answer.json()).toEqual({ message: 'Server error' });
  });

  it('passes the answer body on, and the security headers the redirect service sets itself', async () => {
    const answer = await fetch(`${gateway}/r/page`, { redirect: 'manual' });
    expect(answer.status).toBe(404);
    expect(await answer.text()).toBe('<p>No such link</p>');
    expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('keeps its own connection with the client whatever the redirect service says of its own', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ headers: IncomingHttpHeaders; port: number }>((resolve, reject) => {
        const req = request(`${gateway}${path}`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ headers: res.headers, port: req.socket?.localPort ?? 0 }));
        });
        req.on('error', reject);
        req.end();
      });
    const first = await get('/r/closing');
    expect(first.headers['connection']).toBe('keep-alive');
    expect(first.headers['keep-alive']).not.toContain('99');
    expect((await get('/r/AbC1234')).port).toBe(first.port);
    agent.destroy();
  });

  it('refuses a body in either framing, 400 and the connection closed, and forwards nothing', async () => {
    // The body a request the client hopes someone will take for its own.
    const smuggled = 'GET /r/Smuggle HTTP/1.1\r\nHost: x\r\n\r\n';
    const length = smuggled.length.toString(16);
    const framings = [
      `GET /r/AbC1234 HTTP/1.1\r\nHost: x\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      `GET /r/XyZ9876 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${length}\r\n${smuggled}\r\n0\r\n\r\n`,
    ];
    seen.length = 0;
    for (const request of framings) {
      const socket = connect(Number(new URL(gateway).port), '127.0.0.1');
      await once(socket, 'connect');
      let answers = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (answers += chunk));
      socket.write(request);
      await once(socket, 'close');
      expect(answers.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 400']);
      expect(answers).toMatch(/\r\nconnection: close\r\n/i);
      expect(answers).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
      expect(answers).toContain('{"message":"A short link takes no request body"}');
    }
    // Nothing reached the redirect service, and /r/ goes on as before.
    await fetch(`${gateway}/r/Again12`, { redirect: 'manual' });
    expect(
      seen.map(({ url, headers }) => [
        url,
        headers['content-length'],
        headers['transfer-encoding'],
      ]),
    ).toEqual([['/r/Again12', undefined, undefined]]);
  });

  it('cancels the upstream request when the client goes away', async () => {
    silent.length = 0;
    const client = new AbortController();
    const pending = fetch(`${gateway}/r/silent`, { signal: client.signal }).catch(() => 'aborted');
    for (let i = 0; i < 100 && silent.length === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(silent).toHaveLength(1);
    const closed = once(silent[0]!.socket, 'close');
    client.abort();
    expect(await pending).toBe('aborted');
    await closed;
  });

  it('answers 502 Server error when the redirect service says nothing in time', async () => {
    const started = Date.now();
    const answer = await fetch(`${gateway}/r/silent`, { redirect: 'manual' });
    expect(answer.status).toBe(502);
    expect(await answer.json()).toEqual({ message: 'Server error' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('closes its connections to the redirect service when closed', async () => {
    const upstream = createServer((_req, res) => res.end());
    servers.push(upstream);
    const sockets: Array<Promise<unknown>> = [];
    upstream.on('connection', (socket) => sockets.push(once(socket, 'close')));
    const front = createServer((_req, res) => res.end());
    const closing = redirectFastPath({
      target: await listen(upstream),
      trustedProxies: [],
      logger: pino({ level: 'silent' }),
    });
    inFront(front, closing);
    servers.push(front);
    expect((await fetch(`${await listen(front)}/r/AbC1234`)).status).toBe(200);
    expect(sockets).toHaveLength(1);
    await closing.close();
    await Promise.all(sockets);
  });
});
