import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InternalClient } from '@shortener/chassis';
import { INTERNAL_TOKEN_HEADER, internalApi, REQUESTED_WITH_HEADER } from '@shortener/contracts';
import {
  freePort,
  startEdge,
  startStack,
  waitFor,
  type EdgeProcess,
  type Stack,
} from '@shortener/testkit';
import type { Capture } from './support/capture';
import { startStandInEdge, type StandInEdge } from './support/stand-in-edge';

// The edge `npm run stack` and docker-compose.yml put in front of the stack (nginx, with
// infra/edge/shortener.conf.template), routed as the Kubernetes Ingress is: what reaches
// each service through it, what it answers itself, and the real services behind it.

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

async function call(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    redirect: 'manual',
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text: await response.text(),
  };
}

describe('the nginx edge', () => {
  it('is installed where the tests run (npm test installs it on Debian)', () => {
    // Without nginx every test below would fail on start-up; this says why, once.
    const candidates = process.env.NGINX_PATH
      ? [process.env.NGINX_PATH]
      : ['nginx', '/usr/sbin/nginx'];
    const found = candidates.some(
      (candidate) => spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0,
    );
    expect(found).toBe(true);
  });

  describe('in front of stand-in services', () => {
    let standIns: StandInEdge;
    let redirect: Capture;
    let gateway: Capture;
    let edge: EdgeProcess;

    beforeAll(async () => {
      standIns = await startStandInEdge({
        redirect: (_req, res) => {
          res.writeHead(302, {
            location: 'https://example.com/target',
            'cache-control': 'no-store',
          });
          res.end();
        },
        gateway: (req, res) => {
          if (req.url === '/api/stream') {
            // A live stream: the first event is out long before the stream ends.
            res.writeHead(200, { 'content-type': 'text/event-stream', 'x-accel-buffering': 'no' });
            res.write('data: first\n\n');
            setTimeout(() => res.end('data: last\n\n'), 3_000);
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"from":"gateway"}');
        },
      });
      ({ redirect, gateway, edge } = standIns);
    });

    afterAll(() => standIns.stop());

    beforeEach(() => standIns.forget());

    it('sends /r/ to the redirect service with only the visitor headers it reads', async () => {
      const answer = await call(`${edge.url}/r/abc1234`, {
        headers: {
          'user-agent': 'EdgeTest/1.0',
          referer: 'https://news.example/item',
          cookie: 'session=secret',
          authorization: 'Bearer secret',
          [INTERNAL_TOKEN_HEADER]: 'forged',
          'x-forwarded-for': '203.0.113.7',
          'x-request-id': 'visit-42',
        },
      });

      expect(answer.status).toBe(302);
      expect(answer.headers.location).toBe('https://example.com/target');
      expect(gateway.seen).toHaveLength(0);
      expect(redirect.seen).toHaveLength(1);
      const [seen] = redirect.seen;
      expect(seen!.method).toBe('GET');
      expect(seen!.url).toBe('/r/abc1234');
      expect(seen!.headers['user-agent']).toBe('EdgeTest/1.0');
      expect(seen!.headers.referer).toBe('https://news.example/item');
      // The address the edge saw, never the one the client wrote.
      expect(seen!.headers['x-forwarded-for']).toBe('127.0.0.1');
      expect(seen!.headers['x-request-id']).toBe('visit-42');
      expect(Object.keys(seen!.headers).sort()).toEqual(
        ['host', 'referer', 'user-agent', 'x-forwarded-for', 'x-request-id'].sort(),
      );
    });

    it('gives a request without an id one of its own', async () => {
      await call(`${edge.url}/r/abc1234`);
      await call(`${edge.url}/api/x`, { headers: { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' } });
      const ids = [
        redirect.seen[0]!.headers['x-request-id'],
        gateway.seen[0]!.headers['x-request-id'],
      ];
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(ids[0]).not.toBe(ids[1]);
    });

    it('sends everything else to the gateway as it came, but for the client address', async () => {
      const body = Buffer.from(JSON.stringify({ url: 'https://example.com/' }));
      const answer = await call(`${edge.url}/api/shorten?x=1`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: 'session=abc',
          [REQUESTED_WITH_HEADER]: 'XMLHttpRequest',
          'x-forwarded-for': '203.0.113.7, 198.51.100.1',
        },
        body,
      });

      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ from: 'gateway' });
      expect(redirect.seen).toHaveLength(0);
      const [seen] = gateway.seen;
      expect(seen!.url).toBe('/api/shorten?x=1');
      expect(seen!.headers.cookie).toBe('session=abc');
      expect(seen!.headers[REQUESTED_WITH_HEADER.toLowerCase()]).toBe('XMLHttpRequest');
      expect(seen!.headers['x-forwarded-for']).toBe('127.0.0.1');
      expect(seen!.body.equals(body)).toBe(true);
      for (const page of ['/', '/login?from=/x', '/auth/google/callback?code=1', '/logout']) {
        expect((await call(`${edge.url}${page}`)).status).toBe(200);
      }
      expect(gateway.seen.map(({ url }) => url).slice(1)).toEqual([
        '/',
        '/login?from=/x',
        '/auth/google/callback?code=1',
        '/logout',
      ]);
    });

    it('passes a live stream on as it is written', async () => {
      const began = Date.now();
      const first = await new Promise<{ chunk: string; at: number }>((resolve, reject) => {
        const req = request(`${edge.url}/api/stream`, (res) => {
          res.once('data', (chunk: Buffer) => {
            resolve({ chunk: chunk.toString(), at: Date.now() });
            req.destroy();
          });
        });
        req.on('error', reject);
        req.end();
      });
      expect(first.chunk).toContain('data: first');
      expect(first.at - began).toBeLessThan(2_000);
    });

    it('refuses a body over 1 MB itself, in JSON, and passes nothing on', async () => {
      const answer = await call(`${edge.url}/api/shorten`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(1024 * 1024 + 1, 0x20),
      });
      expect(answer.status).toBe(413);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.text)).toEqual({ message: 'Request body too large' });
      expect(gateway.seen).toHaveLength(0);
    });
  });

  it('reaches a redirect service on its Unix socket (unix:/path) that only its user may open, as npm run stack does', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'edge-socket-'));
    const socket = path.join(folder, 'redirect.sock');
    const seen: IncomingHttpHeaders[] = [];
    const redirect = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(302, { location: 'https://example.com/over-a-socket' });
      res.end();
    });
    redirect.listen(socket);
    await once(redirect, 'listening');
    // As npm run stack and the redirect service leave them: the folder 0700 (mkdtemp), the
    // socket 0600; nginx's workers run as this user, started as root or not.
    chmodSync(socket, 0o600);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const edge = await startEdge(`unix:${socket}`, `127.0.0.1:${await freePort()}`);
    try {
      const answer = await call(`${edge.url}/r/abc1234`, {
        headers: { 'x-forwarded-for': '203.0.113.7', 'user-agent': 'EdgeTest/1.0' },
      });
      expect(answer.status).toBe(302);
      expect(answer.headers.location).toBe('https://example.com/over-a-socket');
      expect(seen).toHaveLength(1);
      expect(seen[0]!['x-forwarded-for']).toBe('127.0.0.1');
      expect(seen[0]!['user-agent']).toBe('EdgeTest/1.0');
    } finally {
      await edge.stop();
      await new Promise((resolve) => redirect.close(resolve));
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('answers 502 `Server error` in JSON while a service behind it is away', async () => {
    const nobody = `127.0.0.1:${await freePort()}`;
    const edge = await startEdge(nobody, nobody);
    try {
      for (const page of ['/r/abc1234', '/api/user']) {
        const answer = await call(`${edge.url}${page}`);
        expect(answer.status).toBe(502);
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(JSON.parse(answer.text)).toEqual({ message: 'Server error' });
      }
    } finally {
      await edge.stop();
    }
  });

  it('says why it cannot start when its port is taken', async () => {
    const taken = createServer((_req, res) => res.end());
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as AddressInfo;
    try {
      await expect(startEdge('127.0.0.1:1', '127.0.0.1:2', port)).rejects.toThrow(
        /Address already in use/,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 20_000);

  describe('in front of the real services (startStack with `edge`, as npm run stack)', () => {
    let stack: Stack;

    beforeAll(async () => {
      stack = await startStack({
        services: ['analytics', 'links', 'auth', 'redirect', 'gateway'],
        edge: true,
        // Not under test, and its Redis counters are shared by every suite shortening from
        // 127.0.0.1.
        env: { SHORTEN_RATE_LIMIT_ANONYMOUS: String(1_000_000_000) },
      });
    }, 120_000);

    afterAll(async () => {
      if (stack) await stack.stop();
    });

    it('is the public origin the services are told', () => {
      expect(stack.url).not.toBe(stack.get('gateway').url);
      expect(stack.env['PUBLIC_ORIGIN']).toBe(stack.url);
    });

    it('shortens through the gateway and redirects through the redirect service', async () => {
      const created = await call(
        `${stack.url}/api/shorten/?url=${encodeURIComponent('https://example.com/through-the-edge')}`,
        { method: 'POST', headers: { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' } },
      );
      expect(created.status).toBe(201);
      const { url: code } = JSON.parse(created.text) as { url: string };

      const followed = await call(`${stack.url}/r/${code}`);
      expect(followed.status).toBe(302);
      expect(followed.headers.location).toBe('https://example.com/through-the-edge');
      const unknown = await call(`${stack.url}/r/zzzzzzz`);
      expect(unknown.status).toBe(404);
      expect(unknown.text).toContain('Link not found');
    });

    it('records the address the edge saw, over the redirect service’s Unix socket', async () => {
      const created = await call(
        `${stack.url}/api/shorten/?url=${encodeURIComponent('https://example.com/visitor-address')}`,
        { method: 'POST', headers: { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' } },
      );
      const { url: code } = JSON.parse(created.text) as { url: string };
      // The edge reaches the redirect service on its socket, as npm run stack has it.
      expect(stack.redirectSocket).toBeDefined();
      expect(statSync(stack.redirectSocket!).isSocket()).toBe(true);
      // A visitor's own X-Forwarded-For is not what gets recorded.
      const followed = await call(`${stack.url}/r/${code}`, {
        headers: { 'x-forwarded-for': '203.0.113.7' },
      });
      expect(followed.status).toBe(302);

      const analytics = new InternalClient('analytics', stack.get('analytics').url, stack.secret);
      const page = await waitFor(
        async () => {
          const visits = await analytics.call(internalApi.visitsPage, { params: { code } });
          return visits.status === 200 && visits.body.visits.length > 0 ? visits.body : undefined;
        },
        { what: 'the visit stored', timeoutMs: 20_000 },
      );
      expect(page.visits.map((visit) => visit.ipAddress)).toEqual(['127.0.0.1']);
    });

    it('keeps the services’ /readyz and /metrics from the public', async () => {
      // Each service answers them to a direct loopback caller; through the edge, which is
      // on loopback too, the forwarded address says the caller is not.
      for (const page of ['/metrics', '/readyz']) {
        expect([200, 503]).toContain((await call(`${stack.get('gateway').url}${page}`)).status);
        expect((await call(`${stack.url}${page}`)).status).toBe(404);
      }
      expect((await call(`${stack.url}/healthz`)).status).toBe(200);
    });
  });
});
