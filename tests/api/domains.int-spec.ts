import { randomUUID } from 'node:crypto';
import {
  API_KEY_MESSAGES,
  DOMAIN_MESSAGES,
  MESSAGES,
  type CreatedApiKey,
  type Domain,
} from '@shortener/contracts';
import { startDnsResponder, type DnsResponder, type Stack } from '@shortener/testkit';
import { type Browser } from './support/browser';
import { someAddress, someClient, startUsersStack, type UsersStack } from './support/users-stack';

// Branded domains (issue 40, item 1) over the whole stack from its builds: added, verified
// against a DNS server of this test's own (support/dns-responder.ts, the links service's
// DNS_SERVERS), refused where another user holds them, removed and restored. The undo window
// is the shortest the links service takes, so "after the window" waits only a few seconds.

const UNDO_WINDOW_MS = 6_000;
/** A host name this service serves short links on (SHORT_LINK_HOSTS), so never a domain. */
const OWN_HOST = 'links.shortener.test';
// A letter last: eight hex digits alone in a host label spell an IPv4 address (7f000001 is
// 127.0.0.1), and a domain that spells a loopback one is refused.
const run = `${randomUUID().slice(0, 8)}q`;
const USERS = {
  erin: { sub: `domains-erin-${run}`, name: 'Erin', picture: '', email: 'e@example.com' },
  frank: { sub: `domains-frank-${run}`, name: 'Frank', picture: '', email: 'f@example.com' },
};
let serial = 0;
const someHost = (): string => `go${(serial += 1)}-${run}.acme.example`;

describe('branded domains', () => {
  let started: UsersStack;
  let stack: Stack;
  let dns: DnsResponder;
  let erin: Browser;
  let frank: Browser;

  const add = (browser: Browser, host: unknown): Promise<Response> =>
    browser.api(`${stack.url}/api/domains`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host }),
    });
  const call = (browser: Browser, method: string, path: string): Promise<Response> =>
    browser.api(`${stack.url}/api/domains/${path}`, { method });
  const verify = (browser: Browser, host: string) => call(browser, 'POST', `${host}/verify`);
  const remove = (browser: Browser, host: string) => call(browser, 'DELETE', host);
  const restore = (browser: Browser, host: string) => call(browser, 'POST', `${host}/restore`);

  async function added(browser: Browser, host: string): Promise<Domain> {
    const response = await add(browser, host);
    expect(response.status).toBe(201);
    return (await response.json()) as Domain;
  }

  async function listed(browser: Browser): Promise<Domain[]> {
    const response = await browser.api(`${stack.url}/api/domains`);
    expect(response.status).toBe(200);
    return (await response.json()) as Domain[];
  }

  async function refusal(response: Promise<Response>): Promise<{ status: number; body: unknown }> {
    const answer = await response;
    return { status: answer.status, body: await answer.json() };
  }

  beforeAll(async () => {
    dns = await startDnsResponder();
    started = await startUsersStack(USERS, {
      env: { SIGN_IN_RATE_LIMIT: '1000' },
      serviceEnv: {
        links: {
          DNS_SERVERS: dns.server,
          SHORT_LINK_HOSTS: OWN_HOST,
          DELETE_UNDO_WINDOW_MS: String(UNDO_WINDOW_MS),
          REMOVALS_INTERVAL_MS: '200',
        },
      },
    });
    ({ stack } = started);
    ({ erin, frank } = await started.signedIn(['erin', 'frank']));
  });

  afterAll(async () => {
    await started?.stop();
    await dns?.stop();
  });

  it('adds a domain unverified, with the TXT record to create; adding it again answers it as it is', async () => {
    const host = someHost();
    const domain = await added(erin, host);
    expect(domain).toEqual({
      host,
      verified: false,
      verification: {
        type: 'TXT',
        name: `_shortener-verify.${host}`,
        value: expect.stringMatching(/^shortener-verify=[\w-]{24}$/) as unknown,
      },
    });
    const again = await add(erin, host.toUpperCase());
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(domain);
    expect((await listed(erin)).filter((each) => each.host === host)).toEqual([domain]);
    expect((await listed(frank)).map((each) => each.host)).not.toContain(host);
  });

  it('verifies once the TXT record holds the value, saying what is missing before', async () => {
    const host = someHost();
    const { verification } = await added(erin, host);

    expect(await refusal(verify(erin, host))).toEqual({
      status: 422,
      body: { message: DOMAIN_MESSAGES.recordMissing(verification.name, verification.value) },
    });
    dns.setTxt(verification.name, ['v=spf1 -all', 'shortener-verify=someone-else']);
    expect(await refusal(verify(erin, host))).toEqual({
      status: 422,
      body: { message: DOMAIN_MESSAGES.recordDifferent(verification.name, verification.value) },
    });
    expect((await listed(erin)).find((each) => each.host === host)?.verified).toBe(false);

    dns.setTxt(verification.name, ['v=spf1 -all', verification.value]);
    const verified = await verify(erin, host);
    expect(verified.status).toBe(200);
    expect(await verified.json()).toEqual({ host, verified: true, verification });
    expect((await listed(erin)).find((each) => each.host === host)?.verified).toBe(true);

    // Verified stays verified, and only its owner may ask.
    expect((await verify(erin, host)).status).toBe(200);
    expect(await refusal(verify(frank, host))).toEqual({
      status: 404,
      body: { message: DOMAIN_MESSAGES.notFound },
    });
  });

  it("refuses a host another user holds (409), verified or not, and another's domain answers like none (404)", async () => {
    const host = someHost();
    await added(erin, host);
    expect(await refusal(add(frank, host))).toEqual({
      status: 409,
      body: { message: DOMAIN_MESSAGES.taken },
    });
    expect((await remove(frank, host)).status).toBe(404);
    expect((await restore(frank, host)).status).toBe(404);
    expect((await listed(erin)).map((each) => each.host)).toContain(host);
  });

  it.each([
    ['an IP address', '203.0.113.7', DOMAIN_MESSAGES.ipLiteral],
    ['an IPv6 address', '[2001:db8::1]', DOMAIN_MESSAGES.ipLiteral],
    ['a single label', 'acme', DOMAIN_MESSAGES.oneLabel],
    ["this service's own host", OWN_HOST.toUpperCase(), DOMAIN_MESSAGES.ownHost],
    ['a name over 253 characters', `${'abcdefghi.'.repeat(25)}example`, DOMAIN_MESSAGES.tooLong],
    ['a label over 63 characters', `${'a'.repeat(64)}.example`, DOMAIN_MESSAGES.tooLong],
    ['a URL', 'https://go.acme.example/x', DOMAIN_MESSAGES.hostInvalid],
    ['no name', '', DOMAIN_MESSAGES.hostRequired],
    ['no string', 42, DOMAIN_MESSAGES.hostRequired],
  ])('refuses %s with 400 and why', async (_what, host, message) => {
    expect(await refusal(add(erin, host))).toEqual({ status: 400, body: { message } });
  });

  it('stores a Unicode name as punycode, in lower case, and finds it by either spelling', async () => {
    const unicode = `Bücher.${run}.Example`;
    const domain = await added(erin, unicode);
    expect(domain.host).toBe(`xn--bcher-kva.${run}.example`);
    expect(domain.verification.name).toBe(`_shortener-verify.xn--bcher-kva.${run}.example`);
    expect((await add(erin, domain.host)).status).toBe(200);
    expect((await remove(erin, encodeURIComponent(unicode))).status).toBe(204);
    expect((await listed(erin)).map((each) => each.host)).not.toContain(domain.host);
  });

  it('is managed with a session only: an API key, even with links:write, is refused (403)', async () => {
    const created = await erin.api(`${stack.url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `domains ${run}`, scopes: ['links:write', 'links:read'] }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as CreatedApiKey;
    const host = someHost();
    const withKey = (method: string, path: string, body?: string) =>
      fetch(`${stack.url}/api/domains${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          'x-forwarded-for': someAddress(),
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body } : {}),
      });
    const calls: Array<[string, string, string?]> = [
      ['POST', '', JSON.stringify({ host })],
      ['GET', ''],
      ['POST', `/${host}/verify`],
      ['DELETE', `/${host}`],
      ['POST', `/${host}/restore`],
    ];
    for (const [method, path, body] of calls) {
      const response = await withKey(method, path, body);
      expect({ method, path, status: response.status, body: await response.json() }).toEqual({
        method,
        path,
        status: 403,
        body: { message: API_KEY_MESSAGES.sessionOnly },
      });
    }
    expect((await listed(erin)).map((each) => each.host)).not.toContain(host);
  });

  it('answers 401 to a caller not signed in', async () => {
    const response = await add(someClient(), someHost());
    expect(response.status).toBe(401);
    expect(((await response.json()) as { message: string }).message).toBe(MESSAGES.unauthorized);
  });

  it('removes a domain and restores it within the undo window, as it was; then it is gone for good and free', async () => {
    const host = someHost();
    const { verification } = await added(erin, host);
    dns.setTxt(verification.name, [verification.value]);
    expect((await verify(erin, host)).status).toBe(200);

    const removed = await remove(erin, host);
    expect(removed.status).toBe(204);
    expect((await listed(erin)).map((each) => each.host)).not.toContain(host);
    expect((await remove(erin, host)).status).toBe(404);
    // Held for its owner's undo meanwhile.
    expect((await add(frank, host)).status).toBe(409);

    const restored = await restore(erin, host);
    expect(restored.status).toBe(200);
    expect(await restored.json()).toEqual({ host, verified: true, verification });
    expect((await listed(erin)).find((each) => each.host === host)?.verified).toBe(true);
    // A live domain answers as it is.
    expect((await restore(erin, host)).status).toBe(200);

    expect((await remove(erin, host)).status).toBe(204);
    const deletedAt = Date.now();
    await new Promise((resolve) =>
      setTimeout(resolve, UNDO_WINDOW_MS + 500 - (Date.now() - deletedAt)),
    );
    expect(await refusal(restore(erin, host))).toEqual({
      status: 404,
      body: { message: DOMAIN_MESSAGES.notFound },
    });
    const taken = await add(frank, host);
    expect(taken.status).toBe(201);
    const fresh = (await taken.json()) as Domain;
    expect(fresh.verified).toBe(false);
    expect(fresh.verification.value).not.toBe(verification.value);
  });
});
