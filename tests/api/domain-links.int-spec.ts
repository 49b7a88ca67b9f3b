import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { type Client } from 'pg';
import {
  ALIAS_MESSAGES,
  internalApi,
  LINK_RULES_MESSAGES,
  type BulkLinksResponse,
  type CreatedApiKey,
  type Domain,
  type ShortLink,
} from '@shortener/contracts';
import { InternalClient } from '@shortener/chassis';
import { brandedKey, GONE, RedisLinkCache } from '@shortener/link-cache';
import {
  hostPort,
  startDnsResponder,
  TcpProxy,
  testServers,
  viaPort,
  waitFor,
  type DnsResponder,
  type Stack,
} from '@shortener/testkit';
import { type Browser } from './support/browser';
import { someAddress, startUsersStack, type UsersStack } from './support/users-stack';

// Links on branded domains (issue 40, item 2) over the whole stack from its builds, real
// PostgreSQL, Redis and Kafka: created on a verified domain of their owner only, each domain
// with its own back-halves, moved to a domain and back, resolved for the redirect by host and
// back-half, and stopped and brought back with their domain. Domains are verified against a
// DNS server of this test's own (the links service's DNS_SERVERS). The links service reaches
// Redis through a proxy the test can cut.

const UNDO_WINDOW_MS = 6_000;
// A letter last: eight hex digits alone in a host label spell an IPv4 address (7f000001 is
// 127.0.0.1), and a domain that spells a loopback one is refused.
const run = `${randomUUID().slice(0, 8)}q`;
const USERS = {
  gina: { sub: `dlinks-gina-${run}`, name: 'Gina', picture: '', email: 'g@example.com' },
  hugo: { sub: `dlinks-hugo-${run}`, name: 'Hugo', picture: '', email: 'h@example.com' },
};
let serial = 0;
const someHost = (): string => `go${(serial += 1)}-${run}.brand.example`;
const someAlias = (): string => `spring-${run}-${(serial += 1)}`;
const uniqueUrl = (): string => `https://example.com/domain-links/${randomUUID()}`;
/** The keys of a plain main-origin link's answer, as SPEC lists them. */
const PLAIN_KEYS = ['createdAt', 'expiresAt', 'originalUrl', 'urlID', 'visitCount'];

describe('links on branded domains', () => {
  let started: UsersStack;
  let stack: Stack;
  let db: Client;
  let dns: DnsResponder;
  let redis: Redis;
  let cache: RedisLinkCache;
  let links: InternalClient;
  let gina: Browser;
  let hugo: Browser;
  let linksRedis: TcpProxy;

  /** A domain of `browser`'s user, added and (unless told otherwise) verified. */
  async function domainOf(browser: Browser, verified = true): Promise<string> {
    const host = someHost();
    const added = await browser.api(`${stack.url}/api/domains`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host }),
    });
    expect(added.status).toBe(201);
    const { verification } = (await added.json()) as Domain;
    if (verified) {
      dns.setTxt(verification.name, [verification.value]);
      expect(
        (await browser.api(`${stack.url}/api/domains/${host}/verify`, { method: 'POST' })).status,
      ).toBe(200);
    }
    return host;
  }

  async function createMany(browser: Browser, items: unknown[]): Promise<BulkLinksResponse> {
    const response = await browser.api(`${stack.url}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(items),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as BulkLinksResponse;
  }

  /** One link created: its bulk answer, which must be a 201. */
  async function created(browser: Browser, item: Record<string, unknown>) {
    const [result] = (await createMany(browser, [item])).results;
    expect(result).toMatchObject({ status: 201 });
    return result as { status: 201; url: string; domain?: string; shortUrl?: string };
  }

  async function listed(browser: Browser, code: string): Promise<ShortLink | undefined> {
    const response = await browser.api(`${stack.url}/api/links?q=${code}`);
    expect(response.status).toBe(200);
    return ((await response.json()) as ShortLink[]).find((link) => link.urlID === code);
  }

  const edit = (browser: Browser, code: string, body: unknown): Promise<Response> =>
    browser.api(`${stack.url}/api/links/${code}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** What the links service answers the redirect for a code (or a host's back-half). */
  async function resolve(code: string, host?: string) {
    const answer = await links.call(internalApi.resolveLink, {
      params: { code },
      ...(host === undefined ? {} : { query: { host } }),
    });
    return answer.status === 200 ? answer.body : null;
  }

  async function linkCount(sub: string): Promise<number> {
    const { rows } = await db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM links.links l JOIN auth.users u ON u.id::text = l.owner_id
       WHERE u.google_id = $1`,
      [sub],
    );
    return rows[0]!.count;
  }

  beforeAll(async () => {
    dns = await startDnsResponder();
    linksRedis = await new TcpProxy(hostPort(testServers.redisUrl)).listen();
    started = await startUsersStack(USERS, {
      env: { SIGN_IN_RATE_LIMIT: '1000' },
      serviceEnv: {
        links: {
          REDIS_URL: viaPort(testServers.redisUrl, linksRedis.port),
          DNS_SERVERS: dns.server,
          DELETE_UNDO_WINDOW_MS: String(UNDO_WINDOW_MS),
          REMOVALS_INTERVAL_MS: '200',
        },
      },
    });
    ({ stack, db } = started);
    ({ gina, hugo } = await started.signedIn(['gina', 'hugo']));
    links = new InternalClient('links', stack.get('links').url, stack.secret);
    redis = new Redis(testServers.redisUrl);
    cache = new RedisLinkCache(redis, { secret: stack.secret });
  });

  afterAll(async () => {
    redis?.disconnect();
    linksRedis?.restore();
    await started?.stop();
    await dns?.stop();
    await linksRedis?.close();
  });

  it('creates a link on a verified domain: its back-half there, its domain and full short URL in every answer', async () => {
    const host = await domainOf(gina);
    const alias = someAlias();
    const url = uniqueUrl();
    const result = await created(gina, { url, alias, domain: host.toUpperCase() });
    expect(result).toEqual({
      status: 201,
      url: expect.stringMatching(/^[0-9A-Za-z]{7}$/) as unknown,
      domain: host,
      shortUrl: `https://${host}/${alias}`,
    });
    const link = await listed(gina, result.url);
    expect(link).toMatchObject({ urlID: result.url, originalUrl: url, domain: host });
    expect(link?.shortUrl).toBe(`https://${host}/${alias}`);

    // Served under its domain's key, not as a main-origin code.
    expect(await resolve(alias, host)).toMatchObject({ url, urlId: result.url });
    expect(await resolve(alias, host.toUpperCase())).toMatchObject({ urlId: result.url });
    expect(await resolve(result.url)).toBeNull();
    expect(await resolve(alias)).toBeNull();
    expect(await cache.get(brandedKey(host, alias))).toMatchObject({ url });
    expect(await cache.get(result.url)).toBeNull();

    // Without an alias, a generated back-half, which is not the code.
    const generated = await created(gina, { url, domain: host });
    expect(generated.shortUrl).toMatch(new RegExp(`^https://${host}/[0-9A-Za-z]{7}$`));
    expect(generated.shortUrl).not.toBe(`https://${host}/${generated.url}`);
  });

  it('answers a plain main-origin link exactly as before, beside domain links', async () => {
    const plain = await created(gina, { url: uniqueUrl() });
    expect(Object.keys(plain).sort()).toEqual(['status', 'url']);
    const response = await gina.api(`${stack.url}/api/user`);
    const { urls } = (await response.json()) as { urls: ShortLink[] };
    expect(Object.keys(urls.find((link) => link.urlID === plain.url)!).sort()).toEqual(PLAIN_KEYS);
    expect(Object.keys((await listed(gina, plain.url))!).sort()).toEqual(PLAIN_KEYS);
  });

  it("refuses an unverified domain, another user's and an unknown one with 400 and why, creating nothing", async () => {
    const unverified = await domainOf(gina, false);
    const hugos = await domainOf(hugo);
    const before = await linkCount(USERS.gina.sub);
    const { results } = await createMany(gina, [
      { url: uniqueUrl(), domain: unverified },
      { url: uniqueUrl(), domain: hugos },
      { url: uniqueUrl(), domain: `nobody-${run}.example` },
      { url: uniqueUrl(), domain: 'not a host' },
      { url: uniqueUrl(), domain: 42 },
    ]);
    expect(results).toEqual([
      { status: 400, message: LINK_RULES_MESSAGES.domainUnverified(unverified) },
      { status: 400, message: LINK_RULES_MESSAGES.domainUnknown(hugos) },
      { status: 400, message: LINK_RULES_MESSAGES.domainUnknown(`nobody-${run}.example`) },
      { status: 400, message: LINK_RULES_MESSAGES.domain },
      { status: 400, message: LINK_RULES_MESSAGES.domain },
    ]);
    expect(await linkCount(USERS.gina.sub)).toBe(before);
  });

  it('keeps a code space per domain: one alias on two domains and on the main origin, taken in any case within one', async () => {
    const [first, second] = [await domainOf(gina), await domainOf(gina)];
    const alias = someAlias();
    const urls = [uniqueUrl(), uniqueUrl(), uniqueUrl()];
    const { results } = await createMany(gina, [
      { url: urls[0], alias },
      { url: urls[1], alias, domain: first },
      { url: urls[2], alias, domain: second },
      { url: uniqueUrl(), alias: alias.toUpperCase(), domain: first },
    ]);
    expect(results.map((result) => result.status)).toEqual([201, 201, 201, 409]);
    expect(results[0]!.url).toBe(alias);
    expect(results[3]!.message).toBe(ALIAS_MESSAGES.taken);
    expect(await resolve(alias)).toMatchObject({ url: urls[0] });
    expect(await resolve(alias, first)).toMatchObject({ url: urls[1], urlId: results[1]!.url });
    expect(await resolve(alias, second)).toMatchObject({ url: urls[2], urlId: results[2]!.url });
    // Hugo's domain does not serve Gina's back-halves.
    expect(await resolve(alias, await domainOf(hugo))).toBeNull();
  });

  it('moves a link to a domain (its code as back-half) and back, refusing what is not verified', async () => {
    const host = await domainOf(gina);
    const url = uniqueUrl();
    const { url: code } = await created(gina, { url });

    const unverified = await domainOf(gina, false);
    const refused = await edit(gina, code, { domain: unverified, url: uniqueUrl() });
    expect([refused.status, await refused.json()]).toEqual([
      400,
      { message: LINK_RULES_MESSAGES.domainUnverified(unverified) },
    ]);
    expect(await listed(gina, code)).toMatchObject({ originalUrl: url });
    expect((await listed(gina, code))?.domain).toBeUndefined();

    const moved = await edit(gina, code, { domain: host });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({
      urlID: code,
      domain: host,
      shortUrl: `https://${host}/${code}`,
    });
    expect(await cache.get(code)).toBe(GONE);
    expect(await cache.get(brandedKey(host, code))).toMatchObject({ url });
    expect(await resolve(code)).toBeNull();
    expect(await resolve(code, host)).toMatchObject({ url, urlId: code });

    const back = await edit(gina, code, { domain: null });
    expect(back.status).toBe(200);
    expect(Object.keys((await back.json()) as object).sort()).toEqual(PLAIN_KEYS);
    expect(await cache.get(brandedKey(host, code))).toBe(GONE);
    expect(await cache.get(code)).toMatchObject({ url });
    expect(await resolve(code)).toMatchObject({ url });
    expect(await resolve(code, host)).toBeNull();
  });

  it("refuses a move where the link's back-half is taken on that domain (409), changing nothing", async () => {
    const host = await domainOf(gina);
    const alias = someAlias();
    await created(gina, { url: uniqueUrl(), alias, domain: host });
    const url = uniqueUrl();
    const { url: code } = await created(gina, {
      url,
      alias: alias.toLowerCase().replace('spring', 'SPRING'),
    });
    const refused = await edit(gina, code, { domain: host, url: uniqueUrl() });
    expect([refused.status, await refused.json()]).toEqual([
      409,
      { message: ALIAS_MESSAGES.taken },
    ]);
    expect(await listed(gina, code)).toEqual(
      expect.objectContaining({ urlID: code, originalUrl: url }),
    );
    expect(await resolve(code)).toMatchObject({ url });
  });

  it("stops a domain's links within a second of its delete, and its restore brings them back", async () => {
    const host = await domainOf(gina);
    const slugs = [someAlias(), someAlias()];
    const urls = [uniqueUrl(), uniqueUrl()];
    const { results } = await createMany(
      gina,
      slugs.map((alias, index) => ({ url: urls[index], alias, domain: host })),
    );
    expect(results.map((result) => result.status)).toEqual([201, 201]);

    const deleted = await gina.api(`${stack.url}/api/domains/${host}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    const since = Date.now();
    for (const slug of slugs) {
      await waitFor(async () => (await cache.get(brandedKey(host, slug))) === GONE, {
        timeoutMs: 1_000,
      });
    }
    expect(Date.now() - since).toBeLessThan(1_000);
    for (const slug of slugs) expect(await resolve(slug, host)).toBeNull();
    // The links stay the owner's, with their domain, through the undo window.
    expect(await listed(gina, results[0]!.url!)).toMatchObject({ domain: host });

    const restored = await gina.api(`${stack.url}/api/domains/${host}/restore`, {
      method: 'POST',
    });
    expect(restored.status).toBe(200);
    for (const [index, slug] of slugs.entries()) {
      expect(await cache.get(brandedKey(host, slug))).toMatchObject({ url: urls[index] });
      expect(await resolve(slug, host)).toMatchObject({ url: urls[index] });
    }
  });

  it('tells the link cache of a delete made while it could not be told, once it can', async () => {
    const host = await domainOf(gina);
    const slug = someAlias();
    const url = uniqueUrl();
    const { url: code } = await created(gina, { url, alias: slug, domain: host });
    expect(await cache.get(brandedKey(host, slug))).toMatchObject({ url });

    linksRedis.cut();
    try {
      const deleted = await gina.api(`${stack.url}/api/domains/${host}`, { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      // The cache still has the live entry: the links service could not reach it.
      expect(await cache.get(brandedKey(host, slug))).toMatchObject({ url });
    } finally {
      linksRedis.restore();
    }
    await waitFor(async () => (await cache.get(brandedKey(host, slug))) === GONE, {
      timeoutMs: 5_000,
      what: "the domain's delete told to the cache by a later round",
    });
    // Told by the domain's round, not by the link's purge once the undo window is over: the
    // round writes that it told once the cache has it, so the flag may follow a moment later.
    const state = async () =>
      (
        await db.query<{ deleted: boolean; told: boolean }>(
          `SELECT l.deleted_at IS NOT NULL AS deleted, d.cache_told AS told
           FROM links.links l JOIN links.domains d ON d.host = l.domain WHERE l.code = $1`,
          [code],
        )
      ).rows;
    await waitFor(async () => (await state())[0]?.told === true, {
      timeoutMs: 2_000,
      what: "the domain's round noting it told the cache",
    });
    expect(await state()).toEqual([{ deleted: false, told: true }]);
  });

  it('tells the link cache of a restore made while it could not be told, once it can', async () => {
    const host = await domainOf(gina);
    const slug = someAlias();
    const url = uniqueUrl();
    await created(gina, { url, alias: slug, domain: host });
    expect((await gina.api(`${stack.url}/api/domains/${host}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    expect(await cache.get(brandedKey(host, slug))).toBe(GONE);

    linksRedis.cut();
    try {
      const restored = await gina.api(`${stack.url}/api/domains/${host}/restore`, {
        method: 'POST',
      });
      expect(restored.status).toBe(200);
      expect(await cache.get(brandedKey(host, slug))).toBe(GONE);
    } finally {
      linksRedis.restore();
    }
    await waitFor(
      async () => ((await cache.get(brandedKey(host, slug))) as { url?: string })?.url === url,
      { timeoutMs: 10_000, what: "the domain's restore told to the cache by a later round" },
    );
  });

  it("deletes a domain's links for good once its undo window is over", async () => {
    const host = await domainOf(gina);
    const { url: code } = await created(gina, { url: uniqueUrl(), domain: host });
    expect((await gina.api(`${stack.url}/api/domains/${host}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    const purged = async () =>
      (await db.query('SELECT 1 FROM links.links WHERE code = $1', [code])).rows.length === 0;
    await waitFor(purged, { timeoutMs: UNDO_WINDOW_MS + 10_000, what: 'the link purged' });
    expect(await listed(gina, code)).toBeUndefined();
    // The host is free again, with nothing on it: another user may add it.
    const added = await hugo.api(`${stack.url}/api/domains`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host }),
    });
    expect(added.status).toBe(201);
  });

  it('lets an API key with links:write put links on a domain', async () => {
    const host = await domainOf(gina);
    const made = await gina.api(`${stack.url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `domain links ${run}`, scopes: ['links:write', 'links:read'] }),
    });
    expect(made.status).toBe(201);
    const { key } = (await made.json()) as CreatedApiKey;
    const alias = someAlias();
    const response = await fetch(`${stack.url}/api/links`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'x-forwarded-for': someAddress(),
        'content-type': 'application/json',
      },
      body: JSON.stringify([{ url: uniqueUrl(), alias, domain: host }]),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as BulkLinksResponse).results).toEqual([
      expect.objectContaining({ status: 201, domain: host, shortUrl: `https://${host}/${alias}` }),
    ]);
  });
});
