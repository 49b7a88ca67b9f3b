import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import type { GatewayConfig } from '../config';
import { FrontendMiddleware, isFrontendPath } from './frontend.middleware';

async function serve(dir: string): Promise<{ url: string; server: Server }> {
  const app = express();
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

  afterAll(() => {
    for (const server of servers) server.close();
  });

  it('serves files, index.html for page paths, and never an asset in place of a missing one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'frontend-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), '<div id="root"></div>');
    writeFileSync(path.join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
    const { url, server } = await serve(dir);
    servers.push(server);

    const page = await fetch(`${url}/profile/abc1234`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<div id="root"></div>');
    expect(page.headers.get('cache-control')).toBe('no-cache');

    const asset = await fetch(`${url}/assets/app-1234.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');

    expect((await fetch(`${url}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${url}/api/user`)).status).toBe(404);
    const escape = await fetch(`${url}/..%2F..%2F..%2F..%2Fetc%2Fpasswd`);
    expect(await escape.text()).not.toContain('root:');
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
