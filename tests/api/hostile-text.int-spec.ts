import { randomInt, randomUUID } from 'node:crypto';
import { type Client } from 'pg';
import {
  API_KEY_MESSAGES,
  LINKS_QUERY_MESSAGES,
  type ApiKey,
  type CreatedApiKey,
  type ShortLink,
  type UserData,
} from '@shortener/contracts';
import { serviceList, waitFor, type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import { someAddress, startUsersStack, type UsersStack } from './support/users-stack';
import { signIn } from './support/sign-in';

// Issue 37, items 2 and 3: text that PostgreSQL refuses (NUL) or that names a property of
// every JavaScript object (`__proto__`), sent where a user types, over the whole stack from
// its builds on real PostgreSQL, Redis and Kafka.

const run = `${Date.now()}-${randomInt(1_000_000)}`;
const USERS = {
  olive: { sub: `text-olive-${run}`, name: 'Olive Text', picture: '', email: 'o@example.com' },
};
/** Aliases that read a property every plain object inherits. */
const INHERITED_NAMES = ['__proto__', 'constructor', 'toString'] as const;

describe('hostile text in the public API', () => {
  let started: UsersStack;
  let stack: Stack;
  let db: Client;
  let olive: Browser;
  let key: string;

  /** A call as a script makes it: the key, no cookie, no X-Requested-With. */
  function withKey(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${stack.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': someAddress() },
    });
  }

  async function listKeys(): Promise<ApiKey[]> {
    const response = await olive.api(`${stack.url}/api/keys`);
    expect(response.status).toBe(200);
    return (await response.json()) as ApiKey[];
  }

  /** Every service's log from now on. */
  function logsFromNow(): () => string {
    const services = serviceList().map(({ name }) => stack.get(name));
    const start = new Map(services.map((service) => [service, service.output().length]));
    return () => services.map((service) => service.output().slice(start.get(service))).join('\n');
  }

  /** A code, its stored rows and its visits' tombstone gone, so a run can make it again. */
  async function forget(code: string): Promise<void> {
    await db.query('DELETE FROM links.links WHERE code = $1', [code]);
    await db.query('DELETE FROM links.removed_links WHERE code = $1', [code]);
    await db.query('DELETE FROM links.retired_codes WHERE code = $1', [code]);
    await db.query('DELETE FROM analytics.deleted_links WHERE url_id = $1', [code]);
    await db.query('DELETE FROM analytics.link_stats WHERE url_id = $1', [code]);
  }

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      // Every request's line too, for the log test.
      env: { TRUSTED_PROXIES: '127.0.0.0/8,::1', SIGN_IN_RATE_LIMIT: '1000', LOG_LEVEL: 'info' },
    });
    ({ stack, db } = started);
    for (const name of INHERITED_NAMES) await forget(name);
    olive = new Browser({ 'x-forwarded-for': someAddress() });
    await signIn(olive, stack.url, 'olive');
    const created = await olive.api(`${stack.url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hostile text', scopes: ['links:read', 'links:write'] }),
    });
    expect(created.status).toBe(201);
    key = ((await created.json()) as CreatedApiKey).key;
  });

  afterAll(async () => {
    if (db) for (const name of INHERITED_NAMES) await forget(name);
    await started?.stop();
  });

  describe('control characters (item 2)', () => {
    it.each([
      ['NUL', 'a\u0000b'],
      ['a line break', 'a\nb'],
      ['an escape', 'a\u001bb'],
      ['DEL', 'a\u007fb'],
    ])('refuses a search holding %s (400), with a session and with a key', async (_what, text) => {
      const path = `/api/links?q=${encodeURIComponent(text)}`;
      for (const response of [await olive.api(`${stack.url}${path}`), await withKey(path)]) {
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({ message: LINKS_QUERY_MESSAGES.searchControl });
      }
    });

    it('still searches text with letters of any script and punctuation', async () => {
      const response = await olive.api(
        `${stack.url}/api/links?q=${encodeURIComponent('straße/ü?%_')}`,
      );
      expect(response.status).toBe(200);
    });

    it('refuses a cursor holding NUL (400)', async () => {
      const response = await olive.api(`${stack.url}/api/links?cursor=a%00b`);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ message: LINKS_QUERY_MESSAGES.cursor });
    });

    it.each([
      ['NUL', 'deploy\u0000script'],
      ['a line break', 'deploy\nscript'],
      ['a tab', 'deploy\tscript'],
    ])('refuses to make a key whose name holds %s (400), and makes none', async (_what, name) => {
      const before = (await listKeys()).length;
      const response = await olive.api(`${stack.url}/api/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, scopes: ['links:read'] }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ message: API_KEY_MESSAGES.nameControl });
      expect(await listKeys()).toHaveLength(before);
    });

    it('refuses an alias holding NUL, alone and in a bulk call, and makes nothing', async () => {
      const alias = `nul\u0000${randomUUID().slice(0, 6)}`;
      const query = new URLSearchParams({ url: 'https://example.com/nul', alias });
      const single = await olive.api(`${stack.url}/api/shorten/?${query.toString()}`, {
        method: 'POST',
      });
      expect(single.status).toBe(403);
      const bulk = await olive.api(`${stack.url}/api/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([{ url: 'https://example.com/nul', alias }]),
      });
      expect(bulk.status).toBe(200);
      expect(((await bulk.json()) as { results: { status: number }[] }).results).toEqual([
        expect.objectContaining({ status: 403 }),
      ]);
    });

    it('writes no search text into any log, refused or served', async () => {
      const logged = logsFromNow();
      const refused = `refused${randomUUID().replace(/-/g, '')}`;
      const served = `served${randomUUID().replace(/-/g, '')}`;
      const requestId = `hostile-text-${randomUUID()}`;
      const answers = [
        await olive.api(`${stack.url}/api/links?q=${refused}%00`),
        await withKey(`/api/links?q=${refused}%00x`),
        await olive.api(`${stack.url}/api/links?q=${served}`, {
          headers: { 'x-request-id': requestId },
        }),
      ];
      // The gateway logs the last call under its request id, after every service answered
      // the calls before it: by then, their lines are written.
      await waitFor(() => stack.get('gateway').output().includes(requestId), {
        what: "the gateway's log of the last search",
      });
      const lines = logged()
        .split('\n')
        .filter((line) => line.includes(refused) || line.includes(served));
      expect(lines).toEqual([]);
      expect(answers.map((answer) => answer.status)).toEqual([400, 400, 200]);
    });
  });

  describe.each(INHERITED_NAMES)('an alias named %s (item 3)', (alias) => {
    const VISITS = 3;
    let ownerLinks: () => Promise<ShortLink[]>;

    beforeAll(async () => {
      const query = new URLSearchParams({ url: `https://example.com/${run}`, alias });
      const made = await olive.api(`${stack.url}/api/shorten/?${query.toString()}`, {
        method: 'POST',
      });
      expect([made.status, await made.json()]).toEqual([201, { url: alias, loggedIn: true }]);
      await db.query('INSERT INTO analytics.link_stats (url_id, visit_count) VALUES ($1, $2)', [
        alias,
        VISITS,
      ]);
      ownerLinks = async () => {
        const response = await olive.api(`${stack.url}/api/user`);
        expect(response.status).toBe(200);
        return ((await response.json()) as UserData).urls;
      };
    });

    it('is listed with its visit count by /api/user, /api/links and a search, also for a key', async () => {
      expect((await ownerLinks()).find((link) => link.urlID === alias)?.visitCount).toBe(VISITS);
      for (const path of ['/api/links', `/api/links?q=${alias}`]) {
        for (const response of [await olive.api(`${stack.url}${path}`), await withKey(path)]) {
          expect([path, response.status]).toEqual([path, 200]);
          const links = (await response.json()) as ShortLink[];
          expect(links.find((link) => link.urlID === alias)?.visitCount).toBe(VISITS);
        }
      }
    });

    it('is edited, deleted and restored with the right answers', async () => {
      const edited = await olive.api(`${stack.url}/api/links/${alias}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://example.com/${run}/edited` }),
      });
      expect(edited.status).toBe(200);
      expect(await edited.json()).toMatchObject({
        urlID: alias,
        originalUrl: `https://example.com/${run}/edited`,
        visitCount: VISITS,
      });
      const deleted = await olive.api(`${stack.url}/api/delete/${alias}`, { method: 'POST' });
      expect([deleted.status, await deleted.json()]).toEqual([200, { loggedIn: true }]);
      expect((await ownerLinks()).map((link) => link.urlID)).not.toContain(alias);
      const restored = await olive.api(`${stack.url}/api/links/${alias}/restore`, {
        method: 'POST',
      });
      expect(restored.status).toBe(200);
      expect(await restored.json()).toMatchObject({ urlID: alias, visitCount: VISITS });
      expect((await ownerLinks()).find((link) => link.urlID === alias)?.visitCount).toBe(VISITS);
      const again = await withKey(`/api/delete/${alias}`, { method: 'POST' });
      expect([again.status, await again.json()]).toEqual([200, { loggedIn: true }]);
    });
  });
});
