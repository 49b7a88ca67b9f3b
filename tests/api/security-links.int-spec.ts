import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import Redis from 'ioredis';
import { type Client } from 'pg';
import {
  internalApi,
  SHORT_CODE_ALPHABET,
  type InternalLink,
  type UserData,
} from '@shortener/contracts';
import { InternalClient } from '@shortener/chassis';
import { testServers, waitFor, type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import { someAddress, startUsersStack, type UsersStack } from './support/users-stack';
import { signIn } from './support/sign-in';

// Security of links and their redirect (issue 13, items 10, 12, 13 and 15), on the real
// servers: the whole stack from its builds, real PostgreSQL, Redis and Kafka. The gateway and
// the redirect service trust X-Forwarded-For from loopback, so each client poses as its own
// address.

const run = Date.now();
const USERS = {
  dora: {
    sub: `security-links-dora-${run}`,
    name: 'Dora',
    picture: 'https://images.example/d.png',
    email: 'd@example.com',
  },
};
/** The miss budget the redirect runs with here: small, so a test can spend it. */
const MISS_BUDGET = 10;
const OWN_LINKS_MESSAGE = 'Short links of this service cannot be shortened again.';

/** A well-formed code no link has (62^7 codes; a collision would only make a test pass). */
function unknownCode(): string {
  return Array.from(randomBytes(7), (byte) => SHORT_CODE_ALPHABET[byte % 62]).join('');
}

describe('security of links and redirects', () => {
  let started: UsersStack;
  let stack: Stack;
  let redis: Redis;
  let db: Client;
  let links: InternalClient;

  const redirect = (code: string, from: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${stack.get('redirect').url}/r/${code}`, {
      redirect: 'manual',
      ...init,
      headers: { 'x-forwarded-for': from, ...(init.headers as Record<string, string>) },
    });

  async function createLink(url: string): Promise<InternalLink> {
    const response = await links.call(internalApi.createLink, {
      identity: { userId: null },
      body: { url, days: 7 },
    });
    if (response.status !== 201) throw new Error(`not created: ${response.body.message}`);
    return response.body;
  }

  async function storedCount(url: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM links.links WHERE original_url = $1',
      [url],
    );
    return rows[0]?.n ?? 0;
  }

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: { TRUSTED_PROXIES: '127.0.0.0/8,::1', SIGN_IN_RATE_LIMIT: '1000' },
      serviceEnv: {
        redirect: {
          REDIRECT_MISS_BUDGET: String(MISS_BUDGET),
          REDIRECT_MISS_BURST: String(MISS_BUDGET),
          // Every request of a test reaches the lookup it is about.
          LOCAL_CACHE_TTL_MS: '0',
          NEGATIVE_CACHE_TTL_MS: '0',
        },
      },
    });
    ({ stack, db } = started);
    redis = new Redis(testServers.redisUrl);
    links = new InternalClient('links', stack.get('links').url, stack.secret);
  });

  afterAll(async () => {
    await started?.stop();
    await redis?.quit();
  });

  describe('item 10: a budget for /r/ misses per client', () => {
    async function spend(address: string): Promise<void> {
      for (let i = 0; i < MISS_BUDGET; i += 1) {
        expect((await redirect(unknownCode(), address)).status).toBe(404);
      }
    }

    it('answers 429 with Retry-After and a small fixed page once a client has spent its misses, without a lookup', async () => {
      const address = someAddress();
      await spend(address);
      const refused = await redirect(unknownCode(), address);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(refused.headers.get('cache-control')).toBe('no-store');
      const page = await refused.text();
      expect(page).toContain('Too many unknown short links');
      expect(page.length).toBeLessThan(1024);
      // HEAD is counted alike.
      expect((await redirect(unknownCode(), address, { method: 'HEAD' })).status).toBe(429);
      // Another client is not touched by it.
      expect((await redirect(unknownCode(), someAddress())).status).toBe(404);
    });

    it('still redirects a client that has spent its misses to every existing link', async () => {
      const link = await createLink(`https://example.com/budget/${randomUUID()}`);
      const address = someAddress();
      await spend(address);
      expect((await redirect(unknownCode(), address)).status).toBe(429);
      const found = await redirect(link.urlID, address);
      expect(found.status).toBe(302);
      expect(found.headers.get('location')).toBe(link.originalUrl);
      // Also when Redis no longer holds it: a found link costs nothing and is served.
      await redis.del(`link:${link.urlID}`);
      const fresh = someAddress();
      for (let i = 0; i < MISS_BUDGET - 1; i += 1) await redirect(unknownCode(), fresh);
      expect((await redirect(link.urlID, fresh)).status).toBe(302);
      expect((await redirect(unknownCode(), fresh)).status).toBe(404);
    });

    it('keys IPv6 clients by their /64', async () => {
      await spend('2001:db8:1:2::1');
      expect((await redirect(unknownCode(), '2001:db8:1:2:ffff:ffff:ffff:fffe')).status).toBe(429);
      expect((await redirect(unknownCode(), '2001:db8:1:3::1')).status).toBe(404);
    });

    it('does not count malformed codes, which never reach a lookup', async () => {
      const address = someAddress();
      for (let i = 0; i < MISS_BUDGET * 3; i += 1) {
        // A dot is in no code (generated or alias), so these are malformed.
        expect((await redirect(`bad.${i}`, address)).status).toBe(404);
      }
      expect((await redirect(unknownCode(), address)).status).toBe(404);
    });
  });

  describe('item 12: the redirect re-checks what Redis holds', () => {
    const expiresAt = (): number => Date.now() + 3_600_000;

    it.each([
      ['javascript:alert(document.cookie)'],
      ['data:text/html,<script>alert(1)</script>'],
      ['JaVaScRiPt:alert(1)'],
      ['vbscript:msgbox(1)'],
      ['https://example.com/\r\nSet-Cookie: a=b'],
      ['not a url'],
    ])('never redirects to %p written into link:{code}', async (target) => {
      const code = unknownCode();
      await redis.set(`link:${code}`, `${expiresAt()}|${target}`, 'PX', 60_000);
      const response = await redirect(code, someAddress());
      expect(response.headers.get('location')).toBeNull();
      expect(response.status).toBe(404);
      await waitFor(() => stack.output().includes(code), {
        what: 'the refused entry logged',
        timeoutMs: 5000,
      });
      const line = stack
        .output()
        .split('\n')
        .find((text) => text.includes(code));
      expect(line).toMatch(/"level":(40|"warn")/);
    });

    it('sends a real link whose Redis entry was tampered with to its stored URL, never the tampered one', async () => {
      const link = await createLink(`https://example.com/tampered/${randomUUID()}`);
      await redis.set(`link:${link.urlID}`, `${expiresAt()}|javascript:alert(1)`, 'PX', 60_000);
      const response = await redirect(link.urlID, someAddress());
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(link.originalUrl);
    });
  });

  describe('issue 25, item 6: Redis is a cache, not an authority', () => {
    const expiresAt = (): number => Date.now() + 3_600_000;

    it.each([['https://attacker.example/phish'], ['http://127.0.0.1:7002/metrics']])(
      'never redirects a code that never existed to %p written into Redis',
      async (target) => {
        const code = unknownCode();
        for (const value of [
          `${expiresAt()}|${target}`,
          `${expiresAt()}|${'A'.repeat(22)}|${target}`,
        ]) {
          await redis.set(`link:${code}`, value, 'PX', 60_000);
          const response = await redirect(code, someAddress());
          expect({ value, status: response.status }).toEqual({ value, status: 404 });
          expect(response.headers.get('location')).toBeNull();
        }
      },
    );

    it('sends a real link to its stored URL when Redis names another target, logs the forgery, and puts the true entry back', async () => {
      const link = await createLink(`https://example.com/forged/${randomUUID()}`);
      const forged = `${expiresAt()}|https://attacker.example/phish`;
      await redis.set(`link:${link.urlID}`, forged, 'PX', 60_000);
      const response = await redirect(link.urlID, someAddress());
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(link.originalUrl);
      const line = stack
        .output()
        .split('\n')
        .find((text) => text.includes(link.urlID) && text.includes('cached link refused'));
      expect(line).toMatch(/"level":(40|"warn")/);
      await waitFor(async () => (await redis.get(`link:${link.urlID}`)) !== forged, {
        what: 'the forged entry replaced',
        timeoutMs: 5000,
      });
      expect(await redis.get(`link:${link.urlID}`)).toContain(link.originalUrl);
    });

    it("never takes one link's true entry for another code's", async () => {
      const victim = await createLink(`https://example.com/victim/${randomUUID()}`);
      const attacker = await createLink(`https://attacker.example/${randomUUID()}`);
      expect((await redirect(attacker.urlID, someAddress())).status).toBe(302);
      const genuine = await waitFor(
        async () => (await redis.get(`link:${attacker.urlID}`)) ?? false,
        {
          what: "the attacker's link in Redis",
        },
      );
      await redis.set(`link:${victim.urlID}`, genuine, 'PX', 60_000);
      const response = await redirect(victim.urlID, someAddress());
      expect(response.headers.get('location')).toBe(victim.originalUrl);
    });
  });

  describe('item 13: no short link of this service, however its host is spelled', () => {
    /** Shortening `url` is refused as a link to ourselves, and nothing is stored. */
    async function expectOwnLinkRefused(url: string): Promise<void> {
      const browser = new Browser({ 'x-forwarded-for': someAddress() });
      const query = new URLSearchParams({ url }).toString();
      const response = await browser.api(`${stack.url}/api/shorten/?${query}`, { method: 'POST' });
      expect({ url, status: response.status }).toEqual({ url, status: 403 });
      expect(await response.json()).toEqual({ message: OWN_LINKS_MESSAGE });
      expect(await storedCount(url)).toBe(0);
    }

    const port = (): string => new URL(stack.url).port;

    it('refuses loopback and unspecified addresses in every spelling, and stores nothing', async () => {
      const spellings = [
        `http://localhost:${port()}/r/abcdefg`,
        `http://LOCALHOST.:${port()}/r/abcdefg`,
        `http://links.localhost:${port()}/r/abcdefg`,
        `http://[::1]:${port()}/r/abcdefg`,
        `http://[0:0:0:0:0:0:0:1]:${port()}/r/abcdefg`,
        `http://[::ffff:127.0.0.1]:${port()}/r/abcdefg`,
        `http://[::ffff:7f00:1]:${port()}/r/abcdefg`,
        `http://0x7f000001:${port()}/r/abcdefg`,
        `http://2130706433:${port()}/r/abcdefg`,
        `http://127.1:${port()}/r/abcdefg`,
        `http://127.0.0.2:${port()}/r/abcdefg`,
        `http://0:${port()}/r/abcdefg`,
        `http://0.0.0.0:${port()}/r/abcdefg`,
        `http://[::]:${port()}/r/abcdefg`,
        `http://%6c%6fcalhost:${port()}/r/abcdefg`,
        'http://127.0.0.1/r/abcdefg',
        'http://localhost/',
        'https://[::1]/admin',
        // This machine's other addresses: where the gateway answers when it listens beyond
        // loopback (the embedded mode on a LAN).
        ...Object.values(networkInterfaces())
          .flatMap((entries) => entries ?? [])
          .filter((entry) => !entry.internal && entry.family === 'IPv4')
          .map((entry) => `http://${entry.address}:${port()}/r/abcdefg`),
      ];
      for (const url of spellings) await expectOwnLinkRefused(url);
    });

    it('refuses this machine by its name, by names that spell a loopback address, and through NAT64 or 6to4 (issue 25, item 11)', async () => {
      const spellings = [
        // This machine's name (which its /etc/hosts maps to loopback here) and every other
        // name /etc/hosts maps to a loopback address.
        `http://${hostname()}:${port()}/r/abcdefg`,
        `http://${hostname().toUpperCase()}./r/abcdefg`,
        ...loopbackNamesInHostsFile().map((name) => `http://${name}/r/abcdefg`),
        // Public wildcard DNS names that answer with the address they spell.
        `http://127.0.0.1.nip.io:${port()}/r/abcdefg`,
        'http://app.127.0.0.1.nip.io/r/abcdefg',
        'http://127-0-0-1.sslip.io/r/abcdefg',
        'http://app-127-0-0-1.nip.io/r/abcdefg',
        'http://7f000001.nip.io/r/abcdefg',
        'http://0.0.0.0.nip.io/r/abcdefg',
        'http://--1.sslip.io/r/abcdefg',
        // IPv4 inside IPv6: NAT64 (RFC 6052, RFC 8215) and 6to4 (RFC 3056).
        'http://[64:ff9b::127.0.0.1]/r/abcdefg',
        `http://[64:ff9b::7f00:1]:${port()}/r/abcdefg`,
        'http://[64:ff9b:1::7f00:1]/r/abcdefg',
        'http://[2002:7f00:1::1]/r/abcdefg',
      ];
      for (const url of spellings) await expectOwnLinkRefused(url);
    });

    it('still shortens addresses that only look like ours', async () => {
      for (const url of [
        `https://example.com/r/abcdefg?from=localhost`,
        'http://128.0.0.1/',
        'https://localhost.example.com/',
        'https://8.8.8.8.nip.io/',
        'https://release-1-2-3-4.example.com/',
        'http://[64:ff9b::8.8.8.8]/',
      ]) {
        const browser = new Browser({ 'x-forwarded-for': someAddress() });
        const query = new URLSearchParams({ url }).toString();
        const response = await browser.api(`${stack.url}/api/shorten/?${query}`, {
          method: 'POST',
        });
        expect({ url, status: response.status }).toEqual({ url, status: 201 });
      }
    });
  });

  describe('item 15: the owner sees what the link really points to', () => {
    it('gives the owner the raw text as stored, while the redirect goes to its normalised form', async () => {
      const dora = new Browser({ 'x-forwarded-for': someAddress() });
      const trip = await signIn(dora, stack.url, 'dora');
      expect(trip.landedAt).toBe(`${stack.url}/profile`);
      // Right-to-left override in the path, zero-width space in host and query, a host
      // with a Cyrillic letter among Latin ones.
      const raw = `https://ex\u200Bample.com/${run}/\u202Egpj.exe?q=\u200B`;
      const mixed = `https://\u0430pple.com/${run}`;
      const codes: string[] = [];
      for (const url of [raw, mixed]) {
        const query = new URLSearchParams({ url }).toString();
        const response = await dora.api(`${stack.url}/api/shorten/?${query}`, { method: 'POST' });
        expect(response.status).toBe(201);
        codes.push(((await response.json()) as { url: string }).url);
      }
      const user = (await (await dora.api(`${stack.url}/api/user`)).json()) as UserData;
      const listed = codes.map((code) => user.urls.find((link) => link.urlID === code));
      // The API keeps the text as given: normalising it for display is the web app's job.
      expect(listed.map((link) => link?.originalUrl)).toEqual([raw, mixed]);
      const locations = await Promise.all(
        codes.map(async (code) => (await redirect(code, someAddress())).headers.get('location')),
      );
      expect(locations).toEqual([
        `https://example.com/${run}/%E2%80%AEgpj.exe?q=%E2%80%8B`,
        `https://xn--pple-43d.com/${run}`,
      ]);
    });
  });
});

/** Names /etc/hosts maps to a loopback address (127.0.0.0/8 or ::1). */
function loopbackNamesInHostsFile(): string[] {
  return readFileSync('/etc/hosts', 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim().split(/\s+/))
    .filter(([address]) => address !== undefined && /^(127\.|::1$)/.test(address))
    .flatMap(([, ...names]) => names);
}
