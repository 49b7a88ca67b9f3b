import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { brandedHostOf } from '@shortener/chassis';
import { inFront, redirectFastPath, type RedirectFastPath } from './redirect-fast-path';

describe('the fast path for a branded host', () => {
  const servers: Server[] = [];
  const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];
  const fallback: string[] = [];
  let fastPath: RedirectFastPath;
  let gatewayPort: number;

  const listen = async (server: Server): Promise<number> => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };

  /** A request to the gateway with this Host (fetch cannot set one). */
  const send = (
    host: string,
    target: string,
    method = 'GET',
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: gatewayPort,
          path: target,
          method,
          headers: { host, ...headers },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  beforeAll(async () => {
    const upstream = createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<p>No such link</p>');
    });
    const upstreamPort = await listen(upstream);
    const front = createServer((req, res) => {
      fallback.push(`${req.headers.host} ${req.method} ${req.url}`);
      res.writeHead(200);
      res.end('app');
    });
    fastPath = redirectFastPath({
      target: `http://127.0.0.1:${upstreamPort}`,
      trustedProxies: [],
      logger: pino({ level: 'silent' }),
      brandedHost: brandedHostOf(['short.example.com']),
    });
    inFront(front, fastPath);
    gatewayPort = await listen(front);
  });

  afterAll(async () => {
    await fastPath.close();
    for (const server of servers) server.closeAllConnections();
    for (const server of servers) server.close();
  });

  beforeEach(() => {
    seen.length = 0;
    fallback.length = 0;
  });

  it('sends every path and method to the redirect service with the Host and visitor headers', async () => {
    const answers = [
      await send('Go.Example.TEST:8080', '/spring?utm_source=x', 'GET', {
        'user-agent': 'Test/1.0',
        cookie: 'sid=secret',
      }),
      await send('go.example.test', '/', 'HEAD'),
      await send('go.example.test', '/api/links', 'POST'),
      await send('go.example.test', 'http://go.example.test/a/b'),
    ];
    expect(answers.map(({ status }) => status)).toEqual([404, 404, 404, 404]);
    expect(answers[0]!.body).toBe('<p>No such link</p>');
    expect(fallback).toEqual([]);
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'GET /spring?utm_source=x',
      'HEAD /',
      'POST /api/links',
      'GET /a/b',
    ]);
    const [first] = seen;
    expect(first!.headers.host).toBe('Go.Example.TEST:8080');
    expect(first!.headers['user-agent']).toBe('Test/1.0');
    expect(first!.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(first!.headers.cookie).toBeUndefined();
  });

  it("passes a password form's POST on with its body, and refuses any other body as on /r/", async () => {
    const post = (method: string, headers: Record<string, string>, body: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: gatewayPort,
            path: '/spring',
            method,
            headers: { host: 'go.example.test', ...headers },
          },
          (res) => (res.resume(), resolve(res.statusCode ?? 0)),
        );
        req.on('error', reject);
        req.end(body);
      });
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie: 'sid=secret' };
    expect(await post('POST', form, 'password=x')).toBe(404);
    expect(await post('PUT', form, 'password=x')).toBe(400);
    expect(seen.map(({ method, url, headers }) => [method, url, headers['content-type']])).toEqual([
      ['POST', '/spring', 'application/x-www-form-urlencoded'],
    ]);
    expect(seen[0]!.headers.cookie).toBeUndefined();
  });

  it('answers its own hosts as before: /r/ to the redirect service, the rest to the app', async () => {
    await send('short.example.com', '/r/AbC1234');
    await send('short.example.com', '/spring');
    await send('localhost:8080', '/api/links', 'POST');
    await send('127.0.0.1', '/');
    expect(seen.map(({ url, headers }) => `${url} ${headers.host}`)).toEqual([
      // The redirect service's own Host, as before: the main origin's code space.
      `/r/AbC1234 127.0.0.1:${(servers[0]!.address() as AddressInfo).port}`,
    ]);
    expect(fallback).toEqual([
      'short.example.com GET /spring',
      'localhost:8080 POST /api/links',
      '127.0.0.1 GET /',
    ]);
  });
});
