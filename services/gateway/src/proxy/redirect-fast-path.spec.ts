import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { securityHeaderValues } from '../edge/security-headers';
import { inFront, redirectFastPath } from './redirect-fast-path';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe('the /r/ fast path', () => {
  const servers: Server[] = [];
  let seen: Array<{ url: string; method: string; headers: IncomingHttpHeaders; port: number }>;
  let gateway: string;
  let fallback: string[];

  beforeAll(async () => {
    seen = [];
    fallback = [];
    const upstream = createServer((req, res) => {
      seen.push({
        url: req.url ?? '',
        method: req.method ?? '',
        headers: req.headers,
        port: req.socket.remotePort ?? 0,
      });
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
    inFront(
      front,
      redirectFastPath({
        target,
        trustedProxies: ['loopback'],
        logger: pino({ level: 'silent' }),
        answerHeaders: securityHeaderValues('http://localhost:8080'),
      }),
    );
    servers.push(front);
    gateway = await listen(front);
  });

  afterAll(() => {
    for (const server of servers) server.close();
  });

  it('passes GET and HEAD /r/ on as they are, answers as they come, the rest to the app', async () => {
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
    await fetch(`${gateway}/r/AbC1234`, { method: 'POST' });
    await fetch(`${gateway}/api/user`);
    expect(fallback).toEqual(['POST /r/AbC1234', 'GET /api/user']);
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
});
