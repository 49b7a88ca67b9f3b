import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BulkLinksResponse, Domain, Visit } from '@shortener/contracts';
import { startDnsResponder, waitFor, type DnsResponder } from '@shortener/testkit';
import { requestWithHost } from '../api/support/host-request';
import * as sample from '../api/support/stats-visits';
import { signInLocally, startCopied, stop, type Browser, type Embedded } from './embedded-app';

// A link's rules in the embedded mode, followed as visitors follow them: one process, PGlite,
// the in-process link cache, counters and visit bus. A link on a verified domain answers on
// that host (the embedded mode is its own edge); the device, the country (X-Forwarded-For
// from a proxy the operator names), a password and a cap each decide the answer, as on the
// stack (tests/api/branded-redirects.int-spec.ts); a change reaches the redirect at once.

const XHR = { 'X-Requested-With': 'XMLHttpRequest' };
const { SAFARI_IPHONE: IPHONE, CHROME_ANDROID: ANDROID, CHROME_WINDOWS: DESKTOP } = sample;
/** An address the offline database places in the Netherlands (RIPE's), and one in Australia. */
const IN_NL = '193.0.14.129';
const IN_AU = '1.1.1.1';

describe('embedded mode: branded links and their rules', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-rules-'));
  const host = 'go.rules.example';
  let dns: DnsResponder;
  let app: Embedded;
  let browser: Browser;

  const call = (method: string, route: string, body?: unknown) =>
    browser.fetch(`${app.url}${route}`, {
      method,
      headers: { ...XHR, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  async function created(item: Record<string, unknown>): Promise<string> {
    const response = await call('POST', '/api/links', [item]);
    expect(response.status).toBe(200);
    const [result] = ((await response.json()) as BulkLinksResponse).results;
    expect(result).toMatchObject({ status: 201 });
    return (result as { url: string }).url;
  }

  const follow = (
    target: string,
    headers: Record<string, string> = {},
    options: { on?: string; method?: string; body?: string } = {},
  ) =>
    requestWithHost(app.url, options.on ?? `localhost:${app.port}`, target, {
      method: options.method ?? 'GET',
      headers: { 'user-agent': DESKTOP, ...headers },
      ...(options.body === undefined ? {} : { body: options.body }),
    });

  beforeAll(async () => {
    dns = await startDnsResponder();
    app = await startCopied(dataDir, { DNS_SERVERS: dns.server, TRUSTED_PROXIES: 'loopback' });
    browser = await signInLocally(app, 'Rules Tester');
    const added = await call('POST', '/api/domains', { host });
    expect(added.status).toBe(201);
    const { verification } = (await added.json()) as Domain;
    dns.setTxt(verification.name, [verification.value]);
    expect((await call('POST', `/api/domains/${host}/verify`)).status).toBe(200);
  });

  afterAll(async () => {
    if (app) await stop(app);
    await dns?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a domain link on its host only, by device and by country, and forwards the query', async () => {
    // Its urlID is a code of its own; the alias is its back-half on the domain.
    const urlID = await created({
      url: 'https://example.com/web?from=link',
      domain: host,
      alias: 'spring',
      ios: 'https://apps.apple.com/app/id1',
      android: 'https://play.google.com/store/apps/details?id=x',
      geo: { NL: 'https://example.nl/' },
    });
    const where = async (headers: Record<string, string>, target = '/spring') => {
      const answer = await follow(target, headers, { on: host });
      expect(answer.status).toBe(302);
      return answer.headers.location;
    };
    expect(await where({ 'user-agent': IPHONE })).toBe('https://apps.apple.com/app/id1');
    expect(await where({ 'user-agent': ANDROID })).toBe(
      'https://play.google.com/store/apps/details?id=x',
    );
    expect(await where({ 'x-forwarded-for': IN_NL })).toBe('https://example.nl/');
    expect(await where({ 'x-forwarded-for': IN_AU })).toBe('https://example.com/web?from=link');
    expect(await where({ 'x-forwarded-for': IN_AU }, '/spring?utm_source=mail&from=query')).toBe(
      'https://example.com/web?from=link&utm_source=mail',
    );

    // Not on the main origin's /r/, nor on a host that is not the link's.
    expect((await follow('/r/spring')).status).toBe(404);
    expect((await follow('/spring', {}, { on: 'other.rules.example' })).status).toBe(404);

    const visits = await waitFor(
      async () => {
        const response = await call('GET', `/api/visitors/${urlID}`);
        const list = response.status === 200 ? ((await response.json()) as Visit[]) : [];
        return list.length === 5 && list;
      },
      { what: "the domain link's five visits in its visitor log" },
    );
    // The address believed from the operator's proxy, with the campaign of the request.
    expect(visits[0]).toMatchObject({ utmSource: 'mail', ipAddress: IN_AU });
  });

  it('asks for the password, counting only the visit it lets through', async () => {
    const code = await created({
      url: 'https://example.com/secret-place',
      password: 'open sesame',
    });
    const form = await follow(`/r/${code}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="password"');
    expect(form.text).not.toContain('secret-place');
    const post = (password: string) =>
      follow(
        `/r/${code}`,
        { 'content-type': 'application/x-www-form-urlencoded' },
        { method: 'POST', body: new URLSearchParams({ password }).toString() },
      );
    expect((await post('wrong')).status).toBe(403);
    const right = await post('open sesame');
    expect(right.status).toBe(302);
    expect(right.headers.location).toBe('https://example.com/secret-place');
    await waitFor(
      async () => {
        const response = await call('GET', `/api/visitors/${code}`);
        return response.status === 200 && ((await response.json()) as Visit[]).length === 1;
      },
      { what: 'the one visit the password let through' },
    );
    // Nothing else arrives: the form and the wrong try were no visits.
    const response = await call('GET', `/api/visitors/${code}`);
    expect((await response.json()) as Visit[]).toHaveLength(1);
  });

  it('stops at its cap, and a change of its rules reaches the redirect at once', async () => {
    const code = await created({ url: 'https://example.com/capped', maxVisits: 2 });
    expect((await follow(`/r/${code}`)).status).toBe(302);
    expect((await follow(`/r/${code}`)).status).toBe(302);
    expect((await follow(`/r/${code}`)).status).toBe(404);

    const raised = await call('PATCH', `/api/links/${code}`, {
      maxVisits: null,
      ios: 'https://apps.apple.com/app/id2',
    });
    expect(raised.status).toBe(200);
    const after = await follow(`/r/${code}`, { 'user-agent': IPHONE });
    expect(after.status).toBe(302);
    expect(after.headers.location).toBe('https://apps.apple.com/app/id2');
  });
});
