import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, get as httpGet, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import cookieParser from 'cookie-parser';
import express from 'express';
import type { GatewayConfig } from '../config';
import { FrontendMiddleware, isFrontendPath } from './frontend.middleware';

/** The web app as built (npm run build). */
const BUILT = path.join(__dirname, '../../../../frontend/dist');

async function serve(dir: string): Promise<{ url: string; server: Server }> {
  const app = express();
  // As the gateway has it (service.ts): the page chosen at `/` depends on a cookie.
  app.use(cookieParser());
  const frontend = new FrontendMiddleware({ FRONTEND_DIR: dir } as GatewayConfig);
  app.use((req, res, next) => frontend.use(req, res, next));
  app.use((_req, res) => res.status(404).json({ message: 'not the page' }));
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('isFrontendPath', () => {
  it.each([
    '/',
    '/profile',
    '/profile/abc1234',
    '/settings',
    '/tc',
    '/privacy_policy',
    '/assets/x.js',
    '/rules',
    '/apiary',
  ])('serves the page at %s', (requestPath) => expect(isFrontendPath(requestPath)).toBe(true));

  it.each([
    '/api',
    '/api/user',
    '/r/abc',
    '/login',
    '/auth/google/callback',
    '/logout',
    '/healthz',
    '/readyz',
    '/metrics',
  ])('leaves %s to the API and the services', (requestPath) =>
    expect(isFrontendPath(requestPath)).toBe(false),
  );
});

describe('FrontendMiddleware', () => {
  const servers: Server[] = [];

  // The web app as built (npm run build): its public files are served as themselves.
  it('answers /robots.txt with the built robots file, as text, not with the page', async () => {
    const { url, server } = await serve(BUILT);
    servers.push(server);
    const response = await fetch(`${url}/robots.txt`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const body = await response.text();
    expect(body).toMatch(/^User-agent: \*$/m);
    expect(body).toMatch(/^Disallow: \/api\/$/m);
  });

  afterAll(() => {
    for (const server of servers) server.close();
  });

  // The built home page carries the page itself, before any script runs.
  it('answers / with the prerendered home page: top bar, form and footer in the HTML', async () => {
    const { url, server } = await serve(BUILT);
    servers.push(server);
    const signedOut = await (await fetch(`${url}/`)).text();
    expect(signedOut).toContain('<div id="root" data-shell="signed-out">');
    expect(signedOut).toMatch(/<header class="top-bar[^"]*">.*>Sign in<\/a>/s);
    expect(signedOut).toMatch(/<h1[^>]*>Shorten your URL<\/h1>/);
    expect(signedOut).toMatch(/<input[^>]*type="url"/);
    expect(signedOut).toContain('Login required to set expiry beyond 7 days.');
    expect(signedOut).toMatch(/<footer class="footer">.*Privacy policy/s);

    const signedIn = await (
      await fetch(`${url}/`, { headers: { cookie: 'loggedIn=true' } })
    ).text();
    expect(signedIn).toContain('<div id="root" data-shell="signed-in">');
    expect(signedIn).toContain('aria-label="Profile"');
    expect(signedIn).not.toContain('>Sign in</a>');

    expect(await (await fetch(`${url}/profile`)).text()).toContain('<div id="root"></div>');
  });

  it('serves files, the page for each page path, and never an asset in place of a missing one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'frontend-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), '<div id="root">home</div>');
    writeFileSync(path.join(dir, 'index.signed-in.html'), '<div id="root">signed-in home</div>');
    writeFileSync(path.join(dir, 'app.html'), '<div id="root"></div>');
    writeFileSync(path.join(dir, 'profile.signed-in.html'), '<div id="root">list frame</div>');
    writeFileSync(path.join(dir, 'link.signed-in.html'), '<div id="root">link frame</div>');
    writeFileSync(path.join(dir, 'settings.signed-in.html'), '<div id="root">settings frame</div>');
    writeFileSync(path.join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
    const { url, server } = await serve(dir);
    servers.push(server);

    const page = await fetch(`${url}/tc`, { headers: { cookie: 'loggedIn=true' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<div id="root"></div>');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('vary') ?? '').not.toMatch(/\bCookie\b/);

    // The profile and settings pages: their frame for a signed-in visitor, the empty page for
    // anyone else.
    for (const [pagePath, cookie, body] of [
      ['/profile', undefined, '<div id="root"></div>'],
      ['/profile', 'loggedIn=true', '<div id="root">list frame</div>'],
      ['/profile/abc1234', 'loggedIn=false', '<div id="root"></div>'],
      ['/profile/abc1234', 'theme=x; loggedIn=true', '<div id="root">link frame</div>'],
      ['/profile/abc1234/more', 'loggedIn=true', '<div id="root"></div>'],
      ['/settings', undefined, '<div id="root"></div>'],
      ['/settings', 'loggedIn=true', '<div id="root">settings frame</div>'],
    ] as const) {
      const profile = await fetch(`${url}${pagePath}`, { headers: cookie ? { cookie } : {} });
      expect([pagePath, cookie, await profile.text()]).toEqual([pagePath, cookie, body]);
      if (!pagePath.endsWith('/more')) expect(profile.headers.get('vary')).toMatch(/\bCookie\b/);
    }

    // The home page by the sign-in indicator the page itself reads ('true' when signed in).
    for (const [cookie, body] of [
      [undefined, '<div id="root">home</div>'],
      ['loggedIn=false', '<div id="root">home</div>'],
      ['theme=x; loggedIn=true', '<div id="root">signed-in home</div>'],
    ] as const) {
      const home = await fetch(`${url}/?ref=mail`, { headers: cookie ? { cookie } : {} });
      expect(await home.text()).toBe(body);
      expect(home.headers.get('cache-control')).toBe('no-cache');
      expect(home.headers.get('vary')).toMatch(/\bCookie\b/);
    }

    const asset = await fetch(`${url}/assets/app-1234.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');

    expect((await fetch(`${url}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${url}/api/user`)).status).toBe(404);
    const escape = await fetch(`${url}/..%2F..%2F..%2F..%2Fetc%2Fpasswd`);
    expect(await escape.text()).not.toContain('root:');
  });

  it('sends the page and its scripts compressed to a browser that takes it (brotli, gzip)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'frontend-'));
    mkdirSync(path.join(dir, 'assets'));
    const script = `console.log(${JSON.stringify('a long enough script '.repeat(200))});`;
    writeFileSync(path.join(dir, 'app.html'), `<div id="root"></div>${' '.repeat(2000)}`);
    writeFileSync(path.join(dir, 'assets', 'app-1234.js'), script);
    const { url, server } = await serve(dir);
    servers.push(server);
    const get = (requestPath: string, encoding: string) =>
      new Promise<{ encoding: string | undefined; bytes: number }>((resolve, reject) => {
        // node:http, not fetch: fetch would decode the body and hide what was sent.
        const request = httpGet(
          `${url}${requestPath}`,
          { headers: { 'accept-encoding': encoding } },
          (response) => {
            let bytes = 0;
            response.on('data', (chunk: Buffer) => (bytes += chunk.length));
            response.on('end', () =>
              resolve({ encoding: response.headers['content-encoding'], bytes }),
            );
          },
        );
        request.on('error', reject);
      });
    const brotli = await get('/assets/app-1234.js', 'gzip, deflate, br');
    expect(brotli.encoding).toBe('br');
    expect(brotli.bytes).toBeLessThan(script.length / 4);
    expect((await get('/assets/app-1234.js', 'gzip')).encoding).toBe('gzip');
    expect((await get('/profile', 'gzip')).encoding).toBe('gzip');
    expect((await get('/assets/app-1234.js', 'identity')).encoding).toBeUndefined();
  });

  it('says the frontend is not built when its folder does not exist, without failing', async () => {
    const { url, server } = await serve(path.join(tmpdir(), 'no-such-frontend-build'));
    servers.push(server);
    for (const requestPath of ['/', '/profile']) {
      const response = await fetch(`${url}${requestPath}`);
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(await response.text()).toContain('The frontend is not built yet');
    }
  });
});
