import { Client } from 'pg';
import Redis from 'ioredis';
import { InternalClient, type CallerIdentity } from '@shortener/chassis';
import { DAY_MS, internalApi } from '@shortener/contracts';
import { startStack, testServers, waitFor, type Stack } from '@shortener/testkit';

// The heart of the product on the real servers: a link is created, resolves at /r/{code},
// and its visit flows through Kafka into PostgreSQL; deletes, expiry and a flushed Redis
// behave as DESIGN.md says. Two redirect instances run, as in production.

const CHROME_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const alice = { userId: 'core-path-alice' };
const bob = { userId: 'core-path-bob' };

describe('core path', () => {
  let stack: Stack;
  let links: InternalClient;
  let analytics: InternalClient;
  let redis: Redis;
  let db: Client;

  async function create(
    identity: CallerIdentity = alice,
    url = 'https://example.com/page?x=1',
    days: unknown = 7,
  ) {
    const response = await links.call(internalApi.createLink, { identity, body: { url, days } });
    if (response.status !== 201) throw new Error(`not created: ${response.body.message}`);
    return response.body;
  }

  function visit(instance: number, code: string, init: RequestInit = {}): Promise<Response> {
    const redirect = stack.all('redirect')[instance];
    if (!redirect) throw new Error(`no redirect instance ${instance}`);
    return fetch(`${redirect.url}/r/${code}`, { redirect: 'manual', ...init });
  }

  beforeAll(async () => {
    stack = await startStack({ services: ['analytics', 'links', 'redirect'] });
    await stack.add('redirect');
    links = new InternalClient('links', stack.get('links').url, stack.secret);
    analytics = new InternalClient('analytics', stack.get('analytics').url, stack.secret);
    redis = new Redis(testServers.redisUrl);
    db = new Client({ connectionString: testServers.databaseUrl });
    await db.connect();
    for (const service of [...stack.all('redirect'), stack.get('analytics'), stack.get('links')]) {
      await waitFor(async () => (await fetch(`${service.url}/readyz`)).ok, {
        what: `${service.name} ready`,
        timeoutMs: 30_000,
      });
    }
  });

  afterAll(async () => {
    await stack?.stop();
    await redis?.quit();
    await db?.end();
  });

  it('redirects a new link with 302 and stores its visit once, with platform and browser', async () => {
    const link = await create();
    const head = await visit(0, link.urlID, { method: 'HEAD' });
    expect(head.status).toBe(302);

    const response = await visit(1, link.urlID, { headers: { 'user-agent': CHROME_ON_WINDOWS } });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://example.com/page?x=1');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('x-robots-tag')).toBe('noindex');

    const page = await waitFor(
      async () => {
        const visits = await analytics.call(internalApi.visitsPage, {
          params: { code: link.urlID },
        });
        return visits.status === 200 && visits.body.visits.length > 0 ? visits.body : undefined;
      },
      { what: 'the visit stored', timeoutMs: 20_000 },
    );
    // The HEAD went first through the same pipeline; had it counted, it would be here too.
    expect(page.visits).toHaveLength(1);
    expect(page.visits[0]).toMatchObject({
      userAgent: { platform: 'Windows', browser: 'Chrome' },
      ipAddress: '127.0.0.1',
    });
    const counts = await analytics.call(internalApi.visitCounts, { body: { codes: [link.urlID] } });
    expect(counts.body.counts[link.urlID]).toBe(1);
  });

  it('stops redirecting a deleted link on every instance within a second', async () => {
    const link = await create();
    for (const instance of [0, 1]) expect((await visit(instance, link.urlID)).status).toBe(302);

    const deleted = await links.request('DELETE', `/internal/links/${link.urlID}`, {
      identity: alice,
    });
    expect(deleted.status).toBe(204);
    await waitFor(
      async () => {
        const statuses = await Promise.all(
          [0, 1].map(async (i) => (await visit(i, link.urlID)).status),
        );
        return statuses.every((status) => status === 404);
      },
      { what: 'both instances answering 404', timeoutMs: 1000, intervalMs: 50 },
    );
  });

  it('still redirects every live link after Redis is flushed, and refills it', async () => {
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create(alice, `https://example.com/flush/${i}`)),
    );
    await redis.flushdb();
    for (const [i, link] of created.entries()) {
      const response = await visit(i % 2, link.urlID);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`https://example.com/flush/${i}`);
    }
    expect(await redis.get(`link:${created[0]!.urlID}`)).toContain('https://example.com/flush/0');
  });

  it('never redirects an expired link, even while Redis still holds it, and hides it from lists', async () => {
    const link = await create();
    const past = Date.now() - 1000;
    await db.query(`UPDATE links.links SET created_at = $2, expires_at = $3 WHERE code = $1`, [
      link.urlID,
      new Date(past - 7 * DAY_MS),
      new Date(past),
    ]);
    await redis.set(`link:${link.urlID}`, `${past}|${link.originalUrl}`, 'PX', 60_000);

    const response = await visit(0, link.urlID);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('text/html');
    const list = await links.call(internalApi.listLinks, { identity: alice });
    if (list.status !== 200) throw new Error(`listing answered ${list.status}`);
    expect(list.body.links.map((l) => l.urlID)).not.toContain(link.urlID);
    const one = await links.request('GET', `/internal/links/${link.urlID}`, { identity: alice });
    expect(one.status).toBe(404);
  });

  it("answers another user's link exactly like an unknown one, and leaves it working", async () => {
    const link = await create(alice);
    const unknown = await links.request('GET', '/internal/links/zzzzzzz', { identity: bob });
    const read = await links.request('GET', `/internal/links/${link.urlID}`, { identity: bob });
    const removed = await links.request('DELETE', `/internal/links/${link.urlID}`, {
      identity: bob,
    });
    expect(read).toEqual(unknown);
    expect(removed.status).toBe(404);
    const list = await links.call(internalApi.listLinks, { identity: bob });
    if (list.status !== 200) throw new Error(`listing answered ${list.status}`);
    expect(list.body.links.map((l) => l.urlID)).not.toContain(link.urlID);
    expect(
      (await links.request('GET', `/internal/links/${link.urlID}`, { identity: alice })).status,
    ).toBe(200);
    expect((await visit(0, link.urlID)).status).toBe(302);
  });

  it('applies the expiry rules: anonymous up to 7 days, anything unknown becomes 7', async () => {
    const anonymous = { userId: null };
    const refused = await links.call(internalApi.createLink, {
      identity: anonymous,
      body: { url: 'https://example.com/', days: 30 },
    });
    expect(refused.status).toBe(403);
    expect(refused.status === 403 && refused.body.message).toBe(
      'Login required to set expiry beyond 7 days.',
    );
    for (const days of [45, 'abc', undefined, -1]) {
      const link = await create(anonymous, 'https://example.com/', days);
      expect(link.expiresAt - Date.parse(link.createdAt)).toBe(7 * DAY_MS);
    }
    const long = await create(alice, 'https://example.com/', '60');
    expect(long.expiresAt - Date.parse(long.createdAt)).toBe(60 * DAY_MS);
  });

  it('refuses bad URLs with a message (403 for a URL the page accepts, else 400) and stores nothing', async () => {
    const bad = [
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'example.com/no-scheme',
      `https://example.com/${'a'.repeat(10_000)}`,
      'https://user:secret@example.com/',
      'http://localhost:8080/r/abcdefg',
      'https://example.com/\r\nSet-Cookie: a=b',
      ['https://a.example', 'https://b.example'],
      '',
    ];
    const before = await db.query('SELECT count(*)::int AS n FROM links.links');
    for (const url of bad) {
      const response = await links.call(internalApi.createLink, {
        identity: alice,
        body: { url, days: 7 },
      });
      // The page sends any absolute URL (SPEC section 5) and shows a 403's message only.
      const pageSends = typeof url === 'string' && URL.canParse(url.trim());
      expect({ url, status: response.status }).toEqual({ url, status: pageSends ? 403 : 400 });
      expect(response.status !== 201 && response.body.message).toEqual(expect.any(String));
    }
    const after = await db.query('SELECT count(*)::int AS n FROM links.links');
    expect(after.rows[0]).toEqual(before.rows[0]);
  });

  it('answers malformed codes with the 404 page, echoing nothing', async () => {
    const redirect = stack.get('redirect');
    for (const path of [
      'abc',
      'abc/def',
      'a.b.c.d',
      '%2e%2e%2f',
      'x'.repeat(200),
      '%C3%BCn%C3%AFc0d',
      '<script>',
    ]) {
      const response = await fetch(`${redirect.url}/r/${path}`, { redirect: 'manual' });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      const body = await response.text();
      expect(body).toContain('does not exist or has expired');
      expect(body).not.toContain('script>');
    }
  });

  it('has every service print JSON log records only, one a line, on the images’ Node.js too', () => {
    // Run last, once visits went through Kafka both ways. On Node 24 kafkajs 2.2.4's negative
    // timer printed a three-line TimeoutNegativeWarning (tulios/kafkajs#1751) on the stderr of
    // every process that uses it: analytics' and the redirect's NODE_OPTIONS turn that one off.
    for (const service of [...stack.all('redirect'), stack.get('analytics'), stack.get('links')]) {
      const notJson = service
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .filter((line) => {
          try {
            return typeof JSON.parse(line) !== 'object';
          } catch {
            return true;
          }
        });
      expect({ service: service.name, notJson }).toEqual({ service: service.name, notJson: [] });
    }
  });
});
