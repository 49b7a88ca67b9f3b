import { REQUESTED_WITH_HEADER } from '@shortener/contracts';
import { freePort, startEdge, startStack, type EdgeProcess, type Stack } from '@shortener/testkit';
import { startCapture, type Capture } from './support/capture';
import { REDIRECT_NOT_FOUND, requestWithHost } from './support/host-request';

// Branded domains at the edges: a request whose Host is not one of the product's own goes,
// whatever its path, to the redirect service with that Host (nginx's default server; the
// gateway's fast path where the gateway is the edge); the product's own hosts answer as before.

/** A customer's domain, as its CNAME brings its visitors to the edge. */
const BRANDED = 'go.example.test';
/** A host the product serves on besides the addresses (PUBLIC_ORIGIN's, say). */
const OWN = 'short.example.test';

describe('the nginx edge, for a branded domain (stand-in services)', () => {
  let redirect: Capture;
  let gateway: Capture;
  let edge: EdgeProcess;

  beforeAll(async () => {
    redirect = await startCapture((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Not found');
    });
    gateway = await startCapture();
    edge = await startEdge(redirect.address, gateway.address, undefined, [
      `https://${OWN}`,
      'links.example.test:8443',
    ]);
  });

  afterAll(async () => {
    await edge?.stop();
    for (const { server } of [redirect, gateway]) {
      await new Promise((resolve) => server?.close(resolve));
    }
  });

  beforeEach(() => {
    redirect.seen.length = 0;
    gateway.seen.length = 0;
  });

  it('sends every path of any other host to the redirect service, with its Host and the visitor headers only', async () => {
    const answer = await requestWithHost(edge.url, `${BRANDED}:8080`, '/spring?utm_source=mail', {
      headers: {
        'user-agent': 'EdgeTest/1.0',
        referer: 'https://news.example/item',
        cookie: 'session=secret',
        authorization: 'Bearer secret',
        'x-forwarded-for': '203.0.113.7',
        'x-request-id': 'branded-1',
      },
    });
    expect(answer.status).toBe(404);
    expect(answer.text).toBe('Not found');
    for (const page of ['/', '/api/user', '/r/abc1234', '/login']) {
      expect((await requestWithHost(edge.url, 'Links.Acme.Example', page)).status).toBe(404);
    }
    expect(gateway.seen).toEqual([]);
    expect(redirect.seen.map(({ url }) => url)).toEqual([
      '/spring?utm_source=mail',
      '/',
      '/api/user',
      '/r/abc1234',
      '/login',
    ]);
    const [first] = redirect.seen;
    expect(first!.headers).toEqual({
      host: `${BRANDED}:8080`,
      'user-agent': 'EdgeTest/1.0',
      referer: 'https://news.example/item',
      // The address the edge saw, never the one the client wrote.
      'x-forwarded-for': '127.0.0.1',
      'x-request-id': 'branded-1',
    });
    expect(redirect.seen[1]!.headers.host).toBe('Links.Acme.Example');
  });

  it('answers the product’s own hosts as before: /r/ to the redirect service, the rest to the gateway', async () => {
    const hosts = [OWN, 'links.example.test:8443', 'localhost:8080', '127.0.0.1', '[::1]', 'app'];
    for (const host of hosts) {
      await requestWithHost(edge.url, host, '/r/abc1234');
      await requestWithHost(edge.url, host, '/spring');
    }
    expect(redirect.seen.map(({ url }) => url)).toEqual(hosts.map(() => '/r/abc1234'));
    expect(gateway.seen.map(({ url, headers }) => `${headers.host} ${url}`)).toEqual(
      hosts.map((host) => `${host} /spring`),
    );
  });

  it("passes a password form's POST on whole, and refuses any other body as on /r/, 400 in JSON", async () => {
    for (const path of ['/spring', '/r/abc1234']) {
      const form = await requestWithHost(edge.url, BRANDED, path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'sid=secret' },
        body: 'password=x',
      });
      expect(form.status).toBe(404);
    }
    expect(
      redirect.seen.map(({ method, url, headers, body }) => [
        method,
        url,
        headers['content-type'],
        headers['content-length'],
        headers.cookie,
        body.toString(),
      ]),
    ).toEqual(
      ['/spring', '/r/abc1234'].map((path) => [
        'POST',
        path,
        'application/x-www-form-urlencoded',
        '10',
        undefined,
        'password=x',
      ]),
    );
    redirect.seen.length = 0;

    const put = await requestWithHost(edge.url, BRANDED, '/spring', {
      method: 'PUT',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=x',
    });
    expect(put.status).toBe(400);
    expect(put.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(put.text)).toEqual({ message: 'A short link takes no request body' });
    // A form sent in chunks (no length) is refused too.
    const chunked = await requestWithHost(edge.url, BRANDED, '/spring', {
      method: 'POST',
      headers: { 'transfer-encoding': 'chunked' },
      body: 'password=x',
    });
    expect(chunked.status).toBe(400);
    expect(redirect.seen).toEqual([]);
  });

  it('answers 502 `Server error` in JSON for a branded host while the redirect service is away', async () => {
    const nobody = `127.0.0.1:${await freePort()}`;
    const away = await startEdge(nobody, nobody);
    try {
      const answer = await requestWithHost(away.url, BRANDED, '/spring');
      expect(answer.status).toBe(502);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.text)).toEqual({ message: 'Server error' });
    } finally {
      await away.stop();
    }
  });
});

describe.each([
  ['the nginx edge (startStack with `edge`, as npm run stack)', true],
  ['the gateway as the edge (npm run stack --no-edge)', false],
])('%s, in front of the real services, for a branded domain', (_name, edge) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      services: ['analytics', 'links', 'auth', 'redirect', 'gateway'],
      edge,
      env: { SHORTEN_RATE_LIMIT_ANONYMOUS: String(1_000_000_000) },
    });
  }, 120_000);

  afterAll(async () => {
    if (stack) await stack.stop();
  });

  it('reaches the redirect service for any path: its 404 for a link it does not have', async () => {
    // The gateway would answer /api/user 401 in JSON and / with the web app.
    for (const page of ['/spring', '/api/user', '/']) {
      const answer = await requestWithHost(stack.url, BRANDED, page, {
        headers: { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' },
      });
      expect({ page, status: answer.status }).toEqual({ page, status: 404 });
      expect(answer.text).toMatch(REDIRECT_NOT_FOUND);
    }
  });

  it('answers the public origin’s host as before', async () => {
    const origin = new URL(stack.url);
    const user = await requestWithHost(stack.url, origin.host, '/api/user', {
      headers: { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' },
    });
    expect(user.status).toBe(401);
    const created = await requestWithHost(
      stack.url,
      `localhost:${origin.port}`,
      `/api/shorten/?url=${encodeURIComponent('https://example.com/own-host')}`,
      { method: 'POST', headers: { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' } },
    );
    expect(created.status).toBe(201);
    const { url: code } = JSON.parse(created.text) as { url: string };
    const followed = await requestWithHost(stack.url, origin.host, `/r/${code}`);
    expect(followed.status).toBe(302);
    expect(followed.headers.location).toBe('https://example.com/own-host');
  });
});
