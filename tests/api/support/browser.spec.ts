import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser } from './browser';

// The jar against a local server: what a browser keeps, sends and drops.

describe('Browser cookie jar', () => {
  let server: Server;
  let origin: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.cookie ?? ''}`);
      const setCookie: Record<string, string[]> = {
        '/set': [
          'sid=abc; Path=/; HttpOnly; SameSite=Lax; Secure',
          '__Host-sid=host; Path=/; Secure; HttpOnly',
          '__Host-bad=nosecure; Path=/',
          'scoped=1; Path=/api',
        ],
        '/clear': [
          'sid=; Path=/; Max-Age=0',
          'scoped=; Path=/api; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
        ],
      };
      res.writeHead(200, { 'set-cookie': setCookie[req.url ?? ''] ?? [] }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('keeps Secure and __Host- cookies on loopback, drops a __Host- one without Secure, and scopes by path', async () => {
    const browser = new Browser();
    await browser.fetch(`${origin}/set`);
    expect(browser.cookie('sid')).toEqual({
      name: 'sid',
      value: 'abc',
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
    });
    expect(browser.cookie('__Host-sid')?.value).toBe('host');
    expect(browser.cookie('__Host-bad')).toBeUndefined();
    expect(browser.cookie('scoped')?.path).toBe('/api');

    await browser.fetch(`${origin}/page`);
    await browser.fetch(`${origin}/api/user`);
    expect(seen.slice(-2)).toEqual([
      '/page sid=abc; __Host-sid=host',
      '/api/user scoped=1; sid=abc; __Host-sid=host',
    ]);
  });

  it('forgets a cookie cleared with Max-Age=0 or a past Expires', async () => {
    const browser = new Browser();
    await browser.fetch(`${origin}/set`);
    await browser.fetch(`${origin}/clear`);
    expect(browser.cookie('sid')).toBeUndefined();
    expect(browser.cookie('scoped')).toBeUndefined();
    expect(browser.cookie('__Host-sid')?.value).toBe('host');
  });

  it('sends a planted cookie to the stacks host, and clears everything on request', async () => {
    const browser = new Browser();
    browser.setCookie('sid', 'planted');
    await browser.fetch(`${origin}/page`);
    expect(seen.at(-1)).toBe('/page sid=planted');
    browser.clearCookies();
    await browser.fetch(`${origin}/page`);
    expect(seen.at(-1)).toBe('/page ');
  });
});

describe('Browser answers checked against the contract', () => {
  let server: Server;
  let origin: string;
  let answer: { status: number; body: unknown };

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("passes a JSON answer its entry's schema takes, and one of a status or path not listed", async () => {
    answer = { status: 201, body: { url: 'AbC1234', loggedIn: false } };
    expect(
      (await new Browser().api(`${origin}/api/shorten/?url=x`, { method: 'POST' })).status,
    ).toBe(201);
    answer = { status: 418, body: { anything: true } };
    expect((await new Browser().api(`${origin}/api/user`)).status).toBe(418);
    expect((await new Browser().fetch(`${origin}/elsewhere`)).status).toBe(418);
  });

  it("refuses a JSON answer outside its entry's schema, naming the call", async () => {
    answer = { status: 201, body: { url: 7 } };
    await expect(
      new Browser().api(`${origin}/api/shorten/?url=x`, { method: 'POST' }),
    ).rejects.toThrow(
      /POST \/api\/shorten\/ answered 201 outside its contract \(shorten, ShortenResponse\)/,
    );
    answer = { status: 401, body: { callBack: '/login' } };
    await expect(new Browser().api(`${origin}/api/visitors/AbC1234`)).rejects.toThrow(
      /getVisitors, Error/,
    );
  });
});
