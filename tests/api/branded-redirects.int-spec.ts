import { randomUUID } from 'node:crypto';
import { type BulkLinksResponse, type Domain, type Visit } from '@shortener/contracts';
import { startDnsResponder, waitFor, type DnsResponder, type Stack } from '@shortener/testkit';
import { type Browser } from './support/browser';
import { requestWithHost } from './support/host-request';
import { startUsersStack, type UsersStack } from './support/users-stack';

// A link on a branded domain followed as its visitors follow it: through the public origin
// (nginx as the edge, as npm run stack serves it, and the gateway as the edge) with the
// domain's Host, over the real links, redirect and
// analytics services, PostgreSQL, Redis and Kafka. Its rules decided by the redirect from
// what the links service wrote; its visits counted under its urlID with their campaign.

const EDGES = [
  ['nginx as the edge', true],
  ['the gateway as the edge', false],
] as const;
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';
const DESKTOP =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe.each(EDGES)('a branded domain link followed through the public origin, %s', (_, edge) => {
  // A letter last: eight hex digits alone in a host label spell an IPv4 address (7f000001 is
  // 127.0.0.1), and a domain that spells a loopback one is refused.
  const run = `${randomUUID().slice(0, 8)}q`;
  const USERS = {
    ines: { sub: `branded-ines-${run}`, name: 'Ines', picture: '', email: 'i@example.com' },
  };
  let started: UsersStack;
  let stack: Stack;
  let dns: DnsResponder;
  let ines: Browser;
  let host: string;

  async function created(item: Record<string, unknown>): Promise<{ url: string }> {
    const response = await ines.api(`${stack.url}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([item]),
    });
    expect(response.status).toBe(200);
    const [result] = ((await response.json()) as BulkLinksResponse).results;
    expect(result).toMatchObject({ status: 201 });
    return result as { url: string };
  }

  const follow = (path: string, userAgent = DESKTOP, on = host) =>
    requestWithHost(stack.url, on, path, { headers: { 'user-agent': userAgent } });

  beforeAll(async () => {
    dns = await startDnsResponder();
    started = await startUsersStack(USERS, {
      edge,
      env: { SIGN_IN_RATE_LIMIT: '1000' },
      serviceEnv: { links: { DNS_SERVERS: dns.server } },
    });
    ({ stack } = started);
    ({ ines } = await started.signedIn(['ines']));
    host = `go-${run}.brand.example`;
    const added = await ines.api(`${stack.url}/api/domains`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host }),
    });
    // The answer whole, so that a refusal says why (a 400 once seen only in a CI run).
    const answer = { status: added.status, body: await added.text() };
    expect(answer).toMatchObject({ status: 201 });
    const { verification } = JSON.parse(answer.body) as Domain;
    dns.setTxt(verification.name, [verification.value]);
    const verified = await ines.api(`${stack.url}/api/domains/${host}/verify`, { method: 'POST' });
    expect(verified.status).toBe(200);
  });

  afterAll(async () => {
    await started?.stop();
    await dns?.stop();
  });

  it('answers its back-half on its domain only, beside a main-origin link of the same alias, and counts the visit under its urlID with its campaign', async () => {
    const alias = `spring-${run}`;
    const onDomain = await created({ url: 'https://example.com/domain', alias, domain: host });
    const onMain = await created({ url: 'https://example.com/main', alias });
    expect(onMain.url).toBe(alias);

    const answer = await follow(`/${alias}?utm_source=news&ref=1`);
    expect(answer.status).toBe(302);
    const location = new URL(String(answer.headers.location));
    expect(location.origin + location.pathname).toBe('https://example.com/domain');
    expect(Object.fromEntries(location.searchParams)).toEqual({ utm_source: 'news', ref: '1' });

    // The main origin's /r/ keeps its own code space; the domain link's code is not on it,
    // nor is its back-half on another host.
    const main = await fetch(`${stack.url}/r/${alias}`, { redirect: 'manual' });
    expect(main.headers.get('location')).toBe('https://example.com/main');
    expect((await fetch(`${stack.url}/r/${onDomain.url}`, { redirect: 'manual' })).status).toBe(
      404,
    );
    expect((await follow(`/${alias}`, DESKTOP, `other-${run}.brand.example`)).status).toBe(404);

    const visits = await waitFor(
      async () => {
        const response = await ines.api(`${stack.url}/api/visitors/${onDomain.url}`);
        const list = (await response.json()) as Visit[];
        return list.length > 0 && list;
      },
      { what: "the domain link's visit in its visitor log" },
    );
    expect(visits).toHaveLength(1);
    expect(visits[0]).toMatchObject({ utmSource: 'news' });
  });

  it('sends iPhones, Android phones and other visitors each to their destination', async () => {
    const { url: code } = await created({
      url: 'https://example.com/web',
      domain: host,
      alias: `app-${run}`,
      ios: 'https://apps.apple.com/app/id1',
      android: 'https://play.google.com/store/apps/details?id=x',
    });
    expect(code).toMatch(/^[0-9A-Za-z]{7}$/);
    const where = async (userAgent: string) =>
      (await follow(`/app-${run}`, userAgent)).headers.location;
    expect(await where(IPHONE)).toBe('https://apps.apple.com/app/id1');
    expect(await where(ANDROID)).toBe('https://play.google.com/store/apps/details?id=x');
    expect(await where(DESKTOP)).toBe('https://example.com/web');
  });

  it('asks for the password before redirecting, and stops at its visit cap', async () => {
    await created({
      url: 'https://example.com/secret-place',
      domain: host,
      alias: `locked-${run}`,
      password: 'open sesame',
    });
    const form = await follow(`/locked-${run}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="password"');
    expect(form.text).not.toContain('secret-place');
    const post = (password: string) =>
      requestWithHost(stack.url, host, `/locked-${run}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password }).toString(),
      });
    expect((await post('wrong')).status).toBe(403);
    // A body on anything but the form's POST is refused at the edge, as on /r/.
    const withBody = await requestWithHost(stack.url, host, `/locked-${run}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=open+sesame',
    });
    expect(withBody.status).not.toBe(302);
    // The redirect service reads at most 4 KB of a form.
    expect((await post(`${'x'.repeat(5000)}`)).status).toBe(413);
    const right = await post('open sesame');
    expect(right.status).toBe(302);
    expect(right.headers.location).toBe('https://example.com/secret-place');

    // A main-origin link's password form is answered on /r/ alike.
    const { url: code } = await created({ url: 'https://example.com/main-locked', password: 'pw' });
    const unlocked = await fetch(`${stack.url}/r/${code}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=pw',
      redirect: 'manual',
    });
    expect(unlocked.status).toBe(302);
    expect(unlocked.headers.get('location')).toBe('https://example.com/main-locked');

    await created({
      url: 'https://example.com/capped',
      domain: host,
      alias: `capped-${run}`,
      maxVisits: 2,
    });
    expect((await follow(`/capped-${run}`)).status).toBe(302);
    expect((await follow(`/capped-${run}`)).status).toBe(302);
    expect((await follow(`/capped-${run}`)).status).toBe(404);
  });
});
