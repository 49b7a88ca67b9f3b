import { randomUUID } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { inProcess, startService, type RunningService } from '@shortener/chassis';
import { decodeVisits, visitRecordOf, type EncodedVisits } from '@shortener/contracts';
import {
  brandedKey,
  hashLinkPassword,
  RedisLinkCache,
  type CachedLink,
  type LinkRules,
} from '@shortener/link-cache';
import { testServers, waitFor } from '@shortener/testkit';
import { service } from './service';

// The redirect's branded hosts and rules over real Redis: entries written as the links
// service writes them, the redirect started in this process (its visits caught as they
// leave), the links service stood in for by a server that answers 404 and notes what it was
// asked (the `host` query of a branded lookup).

const SECRET = `redirect-rules-${randomUUID()}`;
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const US_ADDRESS = '8.8.8.8';
const NL_ADDRESS = '193.0.14.129';
const TRIES = 3;

interface Answer {
  status: number;
  location: string | null;
  text: string;
  headers: Headers;
}

describe('the redirect: branded hosts, rules, query forwarding (real Redis)', () => {
  let redis: Redis;
  let cache: RedisLinkCache;
  let redirect: RunningService;
  let links: Server;
  const asked: string[] = [];
  const visits: string[] = [];
  let version = 1;
  const newCode = (): string => randomUUID().replace(/-/g, '').slice(0, 7);

  async function store(key: string, link: Partial<CachedLink> & { rules?: LinkRules } = {}) {
    await cache.replace(key, {
      url: 'https://example.com/landing',
      expiresAt: Date.now() + 3_600_000,
      version: version++,
      ...link,
    });
  }

  async function get(
    path: string,
    {
      host,
      headers = {},
      method = 'GET',
      body,
    }: {
      host?: string;
      headers?: Record<string, string>;
      method?: string;
      body?: string;
    } = {},
  ): Promise<Answer> {
    // node:http, not fetch(): fetch does not let a request name its Host.
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: redirect.port,
          path,
          method,
          headers: {
            host: host ?? `127.0.0.1:${redirect.port}`,
            'user-agent': DESKTOP,
            ...(body === undefined
              ? {}
              : {
                  'content-type': 'application/x-www-form-urlencoded',
                  'content-length': String(Buffer.byteLength(body)),
                }),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            const answerHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (typeof value === 'string') answerHeaders.set(name, value);
            }
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location ?? null,
              text,
              headers: answerHeaders,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The visits counted for `code` once those queued meanwhile have left. */
  async function visitsOf(code: string, atLeast = 0): Promise<number> {
    const count = () => visits.filter((visit) => visit === code).length;
    if (atLeast > 0) {
      await waitFor(() => (count() >= atLeast ? true : undefined), {
        what: `${atLeast} visit(s) of ${code}`,
        timeoutMs: 5000,
      });
    } else await new Promise((resolve) => setTimeout(resolve, 300));
    return count();
  }

  beforeAll(async () => {
    redis = new Redis(testServers.redisUrl);
    cache = new RedisLinkCache(redis, { secret: SECRET });
    links = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'No such link.' }));
    });
    await new Promise<void>((resolve) => links.listen(0, '127.0.0.1', resolve));
    redirect = await startService(service, {
      hosted: true,
      source: {
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        REDIS_URL: testServers.redisUrl,
        INTERNAL_API_SECRET: SECRET,
        LINKS_URL: `http://127.0.0.1:${(links.address() as AddressInfo).port}`,
        PUBLIC_ORIGIN: 'https://sho.rt.test',
        SHORT_LINK_HOSTS: 's.example.test',
        TRUSTED_PROXIES: '127.0.0.1',
        LOCAL_CACHE_TTL_MS: '0',
        NEGATIVE_CACHE_TTL_MS: '0',
        LINK_PASSWORD_TRIES: String(TRIES),
      },
      given: {
        visits: inProcess({
          publish: (batch: readonly EncodedVisits[]) => {
            for (const run of batch) {
              const decoded = decodeVisits(visitRecordOf(run));
              if (!decoded.ok) continue;
              for (const event of decoded.events) if (event.ok) visits.push(event.event.urlID);
            }
            return Promise.resolve();
          },
        }),
      },
    });
  });

  afterAll(async () => {
    await redirect?.shutdown('test over');
    await new Promise((resolve) => links?.close(resolve));
    redis?.disconnect();
  });

  describe('branded hosts', () => {
    it('serves the same slug on two hosts, each its own link, counted under its urlId', async () => {
      const slug = `spring-${newCode()}`;
      const [first, second] = [newCode(), newCode()];
      await store(brandedKey('go.acme.test', slug), { url: 'https://acme.test/a', urlId: first });
      await store(brandedKey('links.other.test', slug), {
        url: 'https://other.test/b',
        urlId: second,
      });
      expect(await get(`/${slug}`, { host: 'Go.Acme.test:443' })).toMatchObject({
        status: 302,
        location: 'https://acme.test/a',
      });
      expect(await get(`/${slug}`, { host: 'links.other.test' })).toMatchObject({
        status: 302,
        location: 'https://other.test/b',
      });
      expect(await visitsOf(first, 1)).toBe(1);
      expect(await visitsOf(second, 1)).toBe(1);
    });

    it("never answers a domain link's entry on the main origin's /r/", async () => {
      const code = newCode();
      await store(code, { urlId: code });
      expect((await get(`/r/${code}`)).status).toBe(404);
      expect(await visitsOf(code)).toBe(0);
    });

    it('asks the links service for an unknown slug with its host, and answers its 404', async () => {
      const slug = `nothing-${newCode()}`;
      const answer = await get(`/${slug}?a=1`, { host: 'unknown.example.test' });
      expect(answer.status).toBe(404);
      expect(answer.text).toContain('Link not found');
      expect(asked).toContain(`/internal/resolve/${slug}?host=unknown.example.test`);
    });

    it('answers 404 without a lookup for a path of more than one segment on a branded host', async () => {
      const before = asked.length;
      expect((await get('/a/bcdefgh', { host: 'go.acme.test' })).status).toBe(404);
      expect((await get('/', { host: 'go.acme.test' })).status).toBe(404);
      expect(asked.length).toBe(before);
    });

    it('takes its own hosts (PUBLIC_ORIGIN, SHORT_LINK_HOSTS) for no branded host', async () => {
      const slug = `own-${newCode()}`;
      await store(brandedKey('s.example.test', slug), { urlId: newCode() });
      const before = asked.length;
      expect((await get(`/${slug}`, { host: 's.example.test' })).status).toBe(404);
      expect((await get(`/${slug}`, { host: 'sho.rt.test' })).status).toBe(404);
      expect(asked.length).toBe(before);
    });
  });

  describe('rules', () => {
    const rules = {
      ios: 'https://apps.example.test/ios',
      android: 'https://apps.example.test/android',
      geo: { NL: 'https://example.nl/', US: 'https://example.us/' },
    };

    it('sends iPhones and Android phones to their destinations, before the geo rule', async () => {
      const code = newCode();
      await store(code, { rules });
      const from = (userAgent: string) =>
        get(`/r/${code}`, { headers: { 'user-agent': userAgent, 'x-forwarded-for': NL_ADDRESS } });
      expect((await from(IPHONE)).location).toBe(rules.ios);
      expect((await from(ANDROID)).location).toBe(rules.android);
      expect((await from(DESKTOP)).location).toBe(rules.geo.NL);
      expect(await visitsOf(code, 3)).toBe(3);
    });

    it('sends a visitor by the country of the address, else to the url', async () => {
      const code = newCode();
      await store(code, { rules: { geo: rules.geo } });
      const from = (address: string) =>
        get(`/r/${code}`, { headers: { 'x-forwarded-for': address } });
      expect((await from(US_ADDRESS)).location).toBe('https://example.us/');
      expect((await from(NL_ADDRESS)).location).toBe('https://example.nl/');
      expect((await from('1.1.1.1')).location).toBe('https://example.com/landing');
    });

    it('answers a capped link as an expired one past its cap, counting nothing more', async () => {
      const code = newCode();
      await store(code, { rules: { maxVisits: 2 } });
      expect((await get(`/r/${code}`)).status).toBe(302);
      expect((await get(`/r/${code}`, { method: 'HEAD' })).status).toBe(302);
      expect((await get(`/r/${code}`)).status).toBe(302);
      const past = await get(`/r/${code}`);
      expect(past.status).toBe(404);
      expect(past.text).toContain('does not exist or has expired');
      expect((await get(`/r/${code}`, { method: 'HEAD' })).status).toBe(404);
      expect(await visitsOf(code, 2)).toBe(2);
      expect(await visitsOf(code)).toBe(2);
    });
  });

  describe('a password', () => {
    let hash: string;
    beforeAll(async () => {
      hash = await hashLinkPassword('open sesame');
    });

    it('answers a form, nothing of the destination in it and no visit counted', async () => {
      const code = newCode();
      await store(code, {
        url: 'https://secret.example.test/hidden',
        rules: { passwordHash: hash },
      });
      const form = await get(`/r/${code}?x=1`);
      expect(form.status).toBe(200);
      expect(form.text).toMatch(/<form method="post">/);
      expect(form.text).toMatch(/name="password"/);
      expect(form.text).not.toContain('secret.example.test');
      expect(form.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(form.headers.get('cache-control')).toBe('no-store');
      expect(form.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await visitsOf(code)).toBe(0);
    });

    it('redirects on the right password, query forwarded, and counts one visit', async () => {
      const code = newCode();
      await store(code, {
        url: 'https://secret.example.test/hidden',
        rules: { passwordHash: hash },
      });
      const wrong = await get(`/r/${code}`, { method: 'POST', body: 'password=nope' });
      expect(wrong.status).toBe(403);
      expect(wrong.text).toContain('not right');
      const right = await get(`/r/${code}?utm_source=mail`, {
        method: 'POST',
        body: 'password=open+sesame',
      });
      expect(right).toMatchObject({
        status: 302,
        location: 'https://secret.example.test/hidden?utm_source=mail',
      });
      expect(await visitsOf(code, 1)).toBe(1);
      expect(await visitsOf(code)).toBe(1);
    });

    it('limits wrong tries per link and address: 429 with Retry-After past the limit', async () => {
      const code = newCode();
      await store(code, { rules: { passwordHash: hash } });
      const from = (address: string, password: string) =>
        get(`/r/${code}`, {
          method: 'POST',
          body: `password=${password}`,
          headers: { 'x-forwarded-for': address },
        });
      for (let i = 0; i < TRIES; i++) expect((await from(US_ADDRESS, 'wrong')).status).toBe(403);
      const refused = await from(US_ADDRESS, 'open+sesame');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another address still may try.
      expect((await from(NL_ADDRESS, 'open+sesame')).status).toBe(302);
    });

    it('refuses a body of more than a few KB, unread', async () => {
      const code = newCode();
      await store(code, { rules: { passwordHash: hash } });
      const answer = await get(`/r/${code}`, {
        method: 'POST',
        body: `password=${'x'.repeat(8000)}`,
      });
      expect(answer.status).toBe(413);
    });

    it('refuses a POST to a link without a password', async () => {
      const code = newCode();
      await store(code);
      expect((await get(`/r/${code}`, { method: 'POST', body: 'password=x' })).status).toBe(405);
    });
  });

  describe('the query string', () => {
    it("is forwarded, merged: the destination's own parameters kept and winning a clash", async () => {
      const code = newCode();
      await store(code, { url: 'https://example.com/p?a=1&b=two#top' });
      expect((await get(`/r/${code}?b=9&c=3&utm_medium=qr`)).location).toBe(
        'https://example.com/p?a=1&b=two&c=3&utm_medium=qr#top',
      );
      expect((await get(`/r/${code}`)).location).toBe('https://example.com/p?a=1&b=two#top');
      expect((await get(`/r/${code}?`)).location).toBe('https://example.com/p?a=1&b=two#top');
    });

    it('is forwarded on a branded host and to a rule destination too', async () => {
      const slug = `q-${newCode()}`;
      await store(brandedKey('go.acme.test', slug), {
        urlId: newCode(),
        rules: { ios: 'https://apps.example.test/ios' },
      });
      const answer = await get(`/${slug}?ref=x%20y`, {
        host: 'go.acme.test',
        headers: { 'user-agent': IPHONE },
      });
      expect(answer.location).toBe('https://apps.example.test/ios?ref=x%20y');
    });
  });
});
