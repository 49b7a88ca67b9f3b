import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ALIAS_MESSAGES, type BulkLinksResponse } from '@shortener/contracts';
import { waitFor } from '@shortener/testkit';
import { signInLocally, startCopied, stop, type Embedded } from './embedded-app';

// Issue 28's aliases and bulk links in the embedded mode: one process, PGlite (the alias
// migration runs on it), the in-process link cache and visit bus.

const XHR = { 'X-Requested-With': 'XMLHttpRequest' };

describe('embedded mode: aliases and bulk links', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-aliases-'));
  let app: Embedded;

  beforeAll(async () => {
    app = await startCopied(dataDir);
  });

  afterAll(async () => {
    if (app) await stop(app);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes an alias: it redirects, counts visits, is unique without case, and stays retired once deleted', async () => {
    const browser = await signInLocally(app, 'Alias Tester');
    const shorten = (target: string, alias: string, as = browser) =>
      as.fetch(`${app.url}/api/shorten/?url=${encodeURIComponent(target)}&days=30&alias=${alias}`, {
        method: 'POST',
        headers: XHR,
      });

    const created = await shorten('https://example.com/embedded-alias', 'Embedded_Alias-1');
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ url: 'Embedded_Alias-1', loggedIn: true });

    const redirect = await fetch(`${app.url}/r/Embedded_Alias-1`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('https://example.com/embedded-alias');
    const visitors = await waitFor(
      async () => {
        const response = await browser.fetch(`${app.url}/api/visitors/Embedded_Alias-1`, {
          headers: XHR,
        });
        return response.status === 200 ? ((await response.json()) as unknown[]) : undefined;
      },
      { what: 'the visit of the alias to be stored' },
    );
    expect(visitors).toHaveLength(1);

    const taken = await shorten('https://example.com/other', 'embedded_alias-1');
    expect(taken.status).toBe(409);
    expect(await taken.json()).toEqual({ message: ALIAS_MESSAGES.taken });

    const anonymous = await fetch(
      `${app.url}/api/shorten/?url=${encodeURIComponent('https://example.com/a')}&alias=anon-alias`,
      { method: 'POST', headers: XHR },
    );
    expect(anonymous.status).toBe(403);
    expect(await anonymous.json()).toEqual({ message: ALIAS_MESSAGES.loginRequired });

    const deleted = await browser.fetch(`${app.url}/api/delete/Embedded_Alias-1`, {
      method: 'POST',
      headers: XHR,
    });
    expect(deleted.status).toBe(200);
    expect((await fetch(`${app.url}/r/Embedded_Alias-1`, { redirect: 'manual' })).status).toBe(404);
    const again = await shorten('https://example.com/again', 'EMBEDDED_ALIAS-1');
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ message: ALIAS_MESSAGES.recentlyDeleted });
  });

  it('answers a bulk call per link', async () => {
    const browser = await signInLocally(app, 'Bulk Tester');
    const response = await browser.fetch(`${app.url}/api/links`, {
      method: 'POST',
      headers: { ...XHR, 'content-type': 'application/json' },
      body: JSON.stringify([
        { url: 'https://example.com/bulk-1', days: 60 },
        { url: 'https://example.com/bulk-2', alias: 'embedded-bulk' },
        { url: 'https://example.com/bulk-3', alias: 'profile' },
      ]),
    });
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as BulkLinksResponse;
    expect(results).toEqual([
      { status: 201, url: expect.stringMatching(/^[0-9A-Za-z]{7}$/) as unknown },
      { status: 201, url: 'embedded-bulk' },
      { status: 403, message: ALIAS_MESSAGES.reserved },
    ]);
    const redirect = await fetch(`${app.url}/r/embedded-bulk`, { redirect: 'manual' });
    expect(redirect.headers.get('location')).toBe('https://example.com/bulk-2');
  });
});
