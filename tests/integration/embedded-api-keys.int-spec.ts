import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_KEY_MESSAGES, type CreatedApiKey, type UserData } from '@shortener/contracts';
import { signInLocally, startCopied, stop, type Embedded } from './embedded-app';

// API keys in the embedded mode: the auth schema's migration on embedded PostgreSQL, and a
// revocation heard by its one gateway without Redis.

const XHR = { 'X-Requested-With': 'XMLHttpRequest' };

describe('API keys in the embedded mode', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-keys-'));
  let app: Embedded;

  beforeAll(async () => {
    app = await startCopied(dataDir);
  });

  afterAll(async () => {
    if (app) await stop(app);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes a key, shortens and lists with it, and refuses it once revoked', async () => {
    const browser = await signInLocally(app, 'Key Tester');
    const made = await browser.fetch(`${app.url}/api/keys`, {
      method: 'POST',
      headers: { ...XHR, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'laptop script', scopes: ['links:write', 'links:read'] }),
    });
    expect(made.status).toBe(201);
    const { id, key } = (await made.json()) as CreatedApiKey;
    const bearer = { authorization: `Bearer ${key}` };

    const shortened = await fetch(
      `${app.url}/api/shorten/?url=${encodeURIComponent('https://example.com/by-key')}&days=60`,
      { method: 'POST', headers: bearer },
    );
    expect(shortened.status).toBe(201);
    const { url: code } = (await shortened.json()) as { url: string };
    const user = (await (
      await fetch(`${app.url}/api/user`, { headers: bearer })
    ).json()) as UserData;
    expect(user.fullName).toBe('Key Tester');
    expect(user.urls.map((link) => link.urlID)).toContain(code);

    const revoked = await browser.fetch(`${app.url}/api/keys/${id}/revoke`, {
      method: 'POST',
      headers: XHR,
    });
    expect(revoked.status).toBe(204);
    const refused = await fetch(`${app.url}/api/user`, { headers: bearer });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ message: API_KEY_MESSAGES.invalid });
  });
});
