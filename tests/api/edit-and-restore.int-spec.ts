import { randomUUID } from 'node:crypto';
import { type Client } from 'pg';
import {
  DAY_MS,
  EDIT_LINK_MESSAGES,
  MESSAGES,
  TARGET_URL_MESSAGES,
  type ShortLink,
  type UserData,
} from '@shortener/contracts';
import { waitFor, type Stack } from '@shortener/testkit';
import { type Browser } from './support/browser';
import { someAddress, someClient, startUsersStack, type UsersStack } from './support/users-stack';

// Editing a link (PATCH /api/links/{urlID}) and undoing a delete (POST
// /api/links/{urlID}/restore) through the gateway, on the whole set of services from their
// builds, with real PostgreSQL, Redis and Kafka. The undo window is the shortest the links
// service takes, so the test of "after the window" waits only a few seconds.

const UNDO_WINDOW_MS = 6_000;
const run = Date.now();
const USERS = {
  carol: { sub: `carol-${run}`, name: 'Carol', picture: '', email: 'c@example.com' },
  dave: { sub: `dave-${run}`, name: 'Dave', picture: '', email: 'd@example.com' },
};

const uniqueUrl = (): string => `https://example.com/edit/${randomUUID()}?q=1`;

describe('editing a link and undoing a delete', () => {
  let started: UsersStack;
  let stack: Stack;
  let db: Client;
  let carol: Browser;
  let dave: Browser;

  async function shorten(browser: Browser, days = '30'): Promise<{ code: string; url: string }> {
    const url = uniqueUrl();
    const query = new URLSearchParams({ url, days });
    const response = await browser.api(`${stack.url}/api/shorten/?${query.toString()}`, {
      method: 'POST',
    });
    expect(response.status).toBe(201);
    return { code: ((await response.json()) as { url: string }).url, url };
  }

  function edit(browser: Browser, code: string, body: string): Promise<Response> {
    return browser.api(`${stack.url}/api/links/${code}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body,
    });
  }

  const remove = (browser: Browser, code: string): Promise<Response> =>
    browser.api(`${stack.url}/api/delete/${code}`, { method: 'POST' });

  const restore = (browser: Browser, code: string): Promise<Response> =>
    browser.api(`${stack.url}/api/links/${code}/restore`, { method: 'POST' });

  async function listed(browser: Browser, code: string): Promise<ShortLink | undefined> {
    const response = await browser.api(`${stack.url}/api/user`);
    expect(response.status).toBe(200);
    return ((await response.json()) as UserData).urls.find((link) => link.urlID === code);
  }

  /** Where /r/{code} sends a browser now (asked with HEAD: no visit) or null for a 404. */
  async function redirectsTo(code: string): Promise<string | null> {
    const response = await fetch(`${stack.url}/r/${code}`, {
      method: 'HEAD',
      redirect: 'manual',
      headers: { 'x-forwarded-for': someAddress() },
    });
    if (response.status === 404) return null;
    expect(response.status).toBe(302);
    return response.headers.get('location');
  }

  /** Visits a link `times` times and waits until the owner's list counts `total` visits. */
  async function visit(
    browser: Browser,
    code: string,
    times: number,
    total: number,
  ): Promise<void> {
    for (let i = 0; i < times; i += 1) {
      const response = await fetch(`${stack.url}/r/${code}`, {
        redirect: 'manual',
        headers: { 'x-forwarded-for': someAddress() },
      });
      expect(response.status).toBe(302);
    }
    await waitFor(async () => (await listed(browser, code))?.visitCount === total, {
      what: `${total} visits counted`,
      timeoutMs: 30_000,
      intervalMs: 250,
    });
  }

  async function stored(code: string): Promise<{ url: string; expiresAt: number } | undefined> {
    const { rows } = await db.query<{ original_url: string; expires_at: Date }>(
      'SELECT original_url, expires_at FROM links.links WHERE code = $1',
      [code],
    );
    const row = rows[0];
    return row && { url: row.original_url, expiresAt: row.expires_at.getTime() };
  }

  async function storedVisits(code: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM analytics.visits WHERE url_id = $1',
      [code],
    );
    return rows[0]?.n ?? 0;
  }

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: {
        TRUSTED_PROXIES: '127.0.0.0/8,::1',
        SIGN_IN_RATE_LIMIT: '1000',
        SHORTEN_RATE_LIMIT_SIGNED_IN: '1000',
      },
      serviceEnv: {
        links: { DELETE_UNDO_WINDOW_MS: String(UNDO_WINDOW_MS), REMOVALS_INTERVAL_MS: '200' },
      },
    });
    ({ stack, db } = started);
    ({ carol, dave } = await started.signedIn(['carol', 'dave']));
  });

  afterAll(async () => {
    await started?.stop();
  });

  describe('PATCH /api/links/{urlID}', () => {
    it('changes the destination: the same code redirects to the new URL at once and keeps its visits', async () => {
      const { code, url } = await shorten(carol);
      expect(await redirectsTo(code)).toBe(url);
      await visit(carol, code, 2, 2);
      const before = await listed(carol, code);

      const target = uniqueUrl();
      const response = await edit(carol, code, JSON.stringify({ url: target }));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ...before, originalUrl: target });

      expect(await redirectsTo(code)).toBe(target);
      expect(await listed(carol, code)).toEqual({ ...before, originalUrl: target });
      expect(await storedVisits(code)).toBe(2);
      const stats = await carol.api(`${stack.url}/api/stats/${code}?range=all`);
      expect(stats.status).toBe(200);
    });

    it('sets the expiry to the days given, counted from now, keeping the destination', async () => {
      const { code, url } = await shorten(carol, '7');
      const response = await edit(carol, code, JSON.stringify({ days: 60 }));
      expect(response.status).toBe(200);
      const link = (await response.json()) as ShortLink;
      expect(link.originalUrl).toBe(url);
      expect(Math.abs(link.expiresAt - (Date.now() + 60 * DAY_MS))).toBeLessThan(60_000);
      expect((await stored(code))?.expiresAt).toBe(link.expiresAt);
      expect((await listed(carol, code))?.expiresAt).toBe(link.expiresAt);
    });

    it('changes both at once', async () => {
      const { code } = await shorten(carol);
      const target = uniqueUrl();
      const response = await edit(carol, code, JSON.stringify({ url: target, days: 15 }));
      expect(response.status).toBe(200);
      const link = (await response.json()) as ShortLink;
      expect(link.originalUrl).toBe(target);
      expect(Math.round((link.expiresAt - Date.now()) / DAY_MS)).toBe(15);
      expect(await redirectsTo(code)).toBe(target);
    });

    it.each([
      ['an empty object', '{}', EDIT_LINK_MESSAGES.nothingToChange],
      ['no body', '', EDIT_LINK_MESSAGES.notAnObject],
      ['JSON that is not an object', '[1]', EDIT_LINK_MESSAGES.notAnObject],
      ['an unknown field', '{"url":"https://example.com/x","alias":"x"}', undefined],
      ['days not offered', '{"days":45}', EDIT_LINK_MESSAGES.days],
      ['days too large for any number of days', '{"days":1e21}', EDIT_LINK_MESSAGES.days],
      ['days as text', '{"days":"30"}', EDIT_LINK_MESSAGES.days],
      ['a URL that is not a string', '{"url":5}', undefined],
      ['a URL that does not parse', '{"url":"not a url"}', TARGET_URL_MESSAGES.notAbsolute],
      ['a relative URL', '{"url":"/somewhere"}', TARGET_URL_MESSAGES.notAbsolute],
    ])('answers 400 with a message for %s, changing nothing', async (_what, body, message) => {
      const { code, url } = await shorten(carol);
      const before = await stored(code);
      const response = await edit(carol, code, body);
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { message: string };
      if (message) expect(answer.message).toBe(message);
      else expect(answer.message).toMatch(/\w/);
      expect(await stored(code)).toEqual(before);
      expect(await redirectsTo(code)).toBe(url);
    });

    it('answers 400 for JSON that does not parse', async () => {
      const { code } = await shorten(carol);
      const before = await stored(code);
      const response = await edit(carol, code, '{"url": ');
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ message: 'Request body could not be read' });
      expect(await stored(code)).toEqual(before);
    });

    it.each([
      ['an ftp URL', 'ftp://example.com/file', TARGET_URL_MESSAGES.scheme],
      ['a URL with a password', 'https://user:pw@example.com/', TARGET_URL_MESSAGES.credentials],
      ['a URL with a space', 'https://example.com/a b', TARGET_URL_MESSAGES.spaces],
    ])(
      "refuses %s with 403 and shorten's message, changing nothing",
      async (_what, url, message) => {
        const { code } = await shorten(carol);
        const before = await stored(code);
        const response = await edit(carol, code, JSON.stringify({ url }));
        expect(response.status).toBe(403);
        expect(await response.json()).toEqual({ message });
        expect(await stored(code)).toEqual(before);
      },
    );

    it('refuses a short link of this service (no loops)', async () => {
      const { code } = await shorten(carol);
      const response = await edit(carol, code, JSON.stringify({ url: `${stack.url}/r/${code}` }));
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ message: TARGET_URL_MESSAGES.ownLinks });
    });

    it("answers 404 for someone else's link, exactly like an unknown one, and changes nothing", async () => {
      const { code, url } = await shorten(carol);
      const before = await stored(code);
      const body = JSON.stringify({ url: uniqueUrl(), days: 60 });
      const theirs = await edit(dave, code, body);
      const unknown = await edit(dave, 'zzzzzzz', body);
      const malformed = await edit(dave, 'not-a-code!', body);
      for (const response of [theirs, unknown, malformed]) {
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ message: MESSAGES.urlNotFound });
      }
      expect(await stored(code)).toEqual(before);
      expect(await redirectsTo(code)).toBe(url);
    });

    it('answers 401 signed out', async () => {
      const { code } = await shorten(carol);
      const response = await edit(someClient(), code, JSON.stringify({ days: 60 }));
      expect(response.status).toBe(401);
      expect(((await response.json()) as { message: string }).message).toBe(MESSAGES.unauthorized);
    });

    it('answers 404 for a deleted link', async () => {
      const { code } = await shorten(carol);
      expect((await remove(carol, code)).status).toBe(200);
      const response = await edit(carol, code, JSON.stringify({ days: 60 }));
      expect(response.status).toBe(404);
    });
  });

  describe('delete and restore', () => {
    it("keeps SPEC's delete answer, stops the redirect at once, and hides the link", async () => {
      const { code } = await shorten(carol);
      const response = await remove(carol, code);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ loggedIn: true });
      expect(await redirectsTo(code)).toBeNull();
      expect(await listed(carol, code)).toBeUndefined();
      expect((await carol.api(`${stack.url}/api/stats/${code}`)).status).toBe(404);
    });

    it('restores a link deleted moments ago whole: same code, destination, expiry, visits', async () => {
      const { code, url } = await shorten(carol);
      await visit(carol, code, 3, 3);
      const before = await listed(carol, code);
      expect((await remove(carol, code)).status).toBe(200);
      expect(await redirectsTo(code)).toBeNull();

      const response = await restore(carol, code);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(before);
      // No cache keeps the gone marker: the gateway's and the redirect service's alike.
      expect(await redirectsTo(code)).toBe(url);
      expect(await listed(carol, code)).toEqual(before);
      expect(await storedVisits(code)).toBe(3);
      // A visit after the restore counts on top of the ones kept.
      await visit(carol, code, 1, 4);
    });

    it("answers 404 to someone else's restore, and leaves the link deleted", async () => {
      const { code } = await shorten(carol);
      expect((await remove(carol, code)).status).toBe(200);
      const response = await restore(dave, code);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: MESSAGES.urlNotFound });
      expect(await restore(dave, 'zzzzzzz').then((answer) => answer.status)).toBe(404);
      expect(await redirectsTo(code)).toBeNull();
      expect(await listed(carol, code)).toBeUndefined();
    });

    it('answers 404 after the undo window, once the link and its visits are purged', async () => {
      const { code } = await shorten(carol);
      await visit(carol, code, 1, 1);
      expect((await remove(carol, code)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, UNDO_WINDOW_MS + 500));
      const response = await restore(carol, code);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: MESSAGES.urlNotFound });
      await waitFor(
        async () => (await stored(code)) === undefined && (await storedVisits(code)) === 0,
        {
          what: 'the link and its visits purged',
          timeoutMs: 15_000,
        },
      );
      expect(await redirectsTo(code)).toBeNull();
    });

    it('answers 404 to the delete of a link that has expired, as to its edit, and changes nothing', async () => {
      const { code } = await shorten(carol);
      await db.query(
        "UPDATE links.links SET expires_at = now() - interval '1 second' WHERE code = $1",
        [code],
      );
      const before = await stored(code);
      const response = await remove(carol, code);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: MESSAGES.urlNotFound });
      expect(await stored(code)).toEqual(before);
    });

    it('answers 404 to the restore of a link that expired while it was deleted, and leaves it deleted', async () => {
      const { code } = await shorten(carol);
      expect((await remove(carol, code)).status).toBe(200);
      await db.query(
        "UPDATE links.links SET expires_at_before_delete = now() - interval '1 second' WHERE code = $1",
        [code],
      );
      const response = await restore(carol, code);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: MESSAGES.urlNotFound });
      expect(await redirectsTo(code)).toBeNull();
      expect(await listed(carol, code)).toBeUndefined();
    });

    it('answers a restore of a live link with the link (a repeated undo changes nothing)', async () => {
      const { code, url } = await shorten(carol);
      const response = await restore(carol, code);
      expect(response.status).toBe(200);
      expect(((await response.json()) as ShortLink).originalUrl).toBe(url);
      expect(await redirectsTo(code)).toBe(url);
    });
  });
});
