import { randomUUID } from 'node:crypto';
import { type Client } from 'pg';
import {
  internalApi,
  LINK_PASSWORD_MAX,
  LINK_RULES_MESSAGES,
  TARGET_URL_MESSAGES,
  type BulkLinksResponse,
  type ShortLink,
} from '@shortener/contracts';
import { InternalClient } from '@shortener/chassis';
import { verifyLinkPassword } from '@shortener/link-cache';
import { type Stack } from '@shortener/testkit';
import { type Browser } from './support/browser';
import { startUsersStack, type UsersStack } from './support/users-stack';

// Rules on a link (issue 40, items 3-5) over the whole stack from its builds, real PostgreSQL,
// Redis and Kafka: the device's and the country's destinations, a password and a visit cap,
// each set on create or PATCH, checked with a 400 naming the field (nothing changed), removed
// by null, answered (the password only as hasPassword) and handed to the redirect by the
// internal resolve. The password never appears in an answer nor in any service's log.

const run = randomUUID().slice(0, 8);
const USERS = {
  ines: { sub: `rules-ines-${run}`, name: 'Ines', picture: '', email: 'i@example.com' },
};
/** Text no answer or log may hold: the password of the links below. */
const PASSWORD = `open-sesame-${run}`;
const uniqueUrl = (): string => `https://example.com/link-rules/${randomUUID()}`;
const PLAIN_KEYS = ['createdAt', 'expiresAt', 'originalUrl', 'urlID', 'visitCount'];

const EVERY_RULE = {
  ios: 'https://apps.apple.com/app/id1',
  android: 'https://play.google.com/store/apps/details?id=example',
  geo: { gb: 'https://example.co.uk/', DE: 'https://example.de/' },
  password: PASSWORD,
  maxVisits: 100,
};

/** Rules refused, each with the 400 message that names its field. */
const REFUSED: Array<[string, Record<string, unknown>, string]> = [
  [
    'ios not a URL',
    { ios: 'not-a-url' },
    LINK_RULES_MESSAGES.url('ios', TARGET_URL_MESSAGES.notAbsolute),
  ],
  [
    'android not http',
    { android: 'ftp://example.com/app' },
    LINK_RULES_MESSAGES.url('android', TARGET_URL_MESSAGES.scheme),
  ],
  ['ios not text', { ios: 42 }, LINK_RULES_MESSAGES.url('ios', TARGET_URL_MESSAGES.required)],
  [
    'a geo URL with credentials',
    { geo: { GB: 'https://user:pw@example.co.uk/' } },
    LINK_RULES_MESSAGES.url('geo.GB', TARGET_URL_MESSAGES.credentials),
  ],
  [
    'an unknown country',
    { geo: { XX: 'https://example.com/' } },
    LINK_RULES_MESSAGES.country('XX'),
  ],
  [
    'a three-letter country',
    { geo: { GBR: 'https://example.com/' } },
    LINK_RULES_MESSAGES.country('GBR'),
  ],
  ['geo as a list', { geo: ['https://example.com/'] }, LINK_RULES_MESSAGES.geo],
  ['a cap of 0', { maxVisits: 0 }, LINK_RULES_MESSAGES.maxVisits],
  ['a cap as text', { maxVisits: '10' }, LINK_RULES_MESSAGES.maxVisits],
  ['a cap of 1.5', { maxVisits: 1.5 }, LINK_RULES_MESSAGES.maxVisits],
  ['an empty password', { password: '' }, LINK_RULES_MESSAGES.password],
  [
    'a password too long',
    { password: 'p'.repeat(LINK_PASSWORD_MAX + 1) },
    LINK_RULES_MESSAGES.password,
  ],
  ['a password not text', { password: 1234 }, LINK_RULES_MESSAGES.password],
];

describe('rules on a link', () => {
  let started: UsersStack;
  let stack: Stack;
  let db: Client;
  let links: InternalClient;
  let ines: Browser;

  async function createMany(items: unknown[]): Promise<BulkLinksResponse> {
    const response = await ines.api(`${stack.url}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(items),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as BulkLinksResponse;
  }

  async function created(item: Record<string, unknown>): Promise<string> {
    const [result] = (await createMany([item])).results;
    expect(result).toMatchObject({ status: 201 });
    return result!.url!;
  }

  async function listed(code: string): Promise<ShortLink | undefined> {
    const response = await ines.api(`${stack.url}/api/links?q=${code}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(PASSWORD);
    return (JSON.parse(text) as ShortLink[]).find((link) => link.urlID === code);
  }

  const edit = (code: string, body: unknown): Promise<Response> =>
    ines.api(`${stack.url}/api/links/${code}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  async function resolve(code: string) {
    const answer = await links.call(internalApi.resolveLink, { params: { code } });
    expect(answer.status).toBe(200);
    return answer.status === 200 ? answer.body : null;
  }

  async function stored(code: string) {
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT original_url, ios_url, android_url, geo_urls, password_hash, max_visits, version
       FROM links.links WHERE code = $1`,
      [code],
    );
    return rows[0];
  }

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: { SIGN_IN_RATE_LIMIT: '1000', LOG_LEVEL: 'debug' },
    });
    ({ stack, db } = started);
    ({ ines } = await started.signedIn(['ines']));
    links = new InternalClient('links', stack.get('links').url, stack.secret);
  });

  afterAll(async () => {
    await started?.stop();
  });

  it('sets every rule on create, answers them (the password as hasPassword) and keeps the password as a hash only', async () => {
    const url = uniqueUrl();
    const code = await created({ url, ...EVERY_RULE });
    const link = await listed(code);
    expect(link).toEqual({
      urlID: code,
      originalUrl: url,
      createdAt: expect.any(String) as unknown,
      expiresAt: expect.any(Number) as unknown,
      visitCount: 0,
      ios: EVERY_RULE.ios,
      android: EVERY_RULE.android,
      geo: { GB: 'https://example.co.uk/', DE: 'https://example.de/' },
      hasPassword: true,
      maxVisits: 100,
    });
    const row = await stored(code);
    expect(row?.['password_hash']).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
    expect(await verifyLinkPassword(PASSWORD, row?.['password_hash'] as string)).toBe(true);
  });

  it('hands the redirect every rule on resolve, the password as its hash', async () => {
    const url = uniqueUrl();
    const code = await created({ url, ...EVERY_RULE });
    const resolved = await resolve(code);
    expect(resolved).toMatchObject({
      url,
      rules: {
        ios: EVERY_RULE.ios,
        android: EVERY_RULE.android,
        geo: { GB: 'https://example.co.uk/', DE: 'https://example.de/' },
        passwordHash: (await stored(code))?.['password_hash'],
        maxVisits: 100,
      },
    });
    expect(JSON.stringify(resolved)).not.toContain(PASSWORD);
    // A plain link has no rules at all.
    expect(await resolve(await created({ url }))).not.toHaveProperty('rules');
  });

  it('changes rules one by one with PATCH, and null removes each', async () => {
    const url = uniqueUrl();
    const code = await created({ url });
    const changed = await edit(code, { maxVisits: 5, geo: { FR: 'https://example.fr/' } });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      urlID: code,
      maxVisits: 5,
      geo: { FR: 'https://example.fr/' },
    });
    const withPassword = await edit(code, { password: PASSWORD, ios: EVERY_RULE.ios });
    const text = await withPassword.text();
    expect(withPassword.status).toBe(200);
    expect(text).not.toContain(PASSWORD);
    expect(JSON.parse(text)).toMatchObject({
      hasPassword: true,
      maxVisits: 5,
      ios: EVERY_RULE.ios,
    });

    const cleared = await edit(code, { ios: null, geo: null, password: null, maxVisits: null });
    expect(cleared.status).toBe(200);
    expect(Object.keys((await cleared.json()) as object).sort()).toEqual(PLAIN_KEYS);
    expect(await stored(code)).toMatchObject({
      original_url: url,
      ios_url: null,
      geo_urls: null,
      password_hash: null,
      max_visits: null,
    });
    expect(await resolve(code)).not.toHaveProperty('rules');
  });

  it.each(REFUSED)(
    'refuses %s on PATCH with 400 naming the field, changing nothing',
    async (_what, rules, message) => {
      const code = await created({ url: uniqueUrl(), maxVisits: 7 });
      const before = await stored(code);
      const refused = await edit(code, { url: uniqueUrl(), ...rules });
      expect([refused.status, await refused.json()]).toEqual([400, { message }]);
      expect(await stored(code)).toEqual(before);
    },
  );

  it('refuses each bad rule on create with 400 naming the field, creating nothing', async () => {
    const urls = REFUSED.map(() => uniqueUrl());
    const { results } = await createMany(
      REFUSED.map(([, rules], index) => ({ url: urls[index], ...rules })),
    );
    expect(results).toEqual(REFUSED.map(([, , message]) => ({ status: 400, message })));
    const { rows } = await db.query('SELECT 1 FROM links.links WHERE original_url = ANY($1)', [
      urls,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('never writes the password into any service log', () => {
    for (const name of ['gateway', 'links', 'redirect', 'auth', 'analytics'] as const) {
      expect({ name, leaked: stack.get(name).output().includes(PASSWORD) }).toEqual({
        name,
        leaked: false,
      });
    }
  });
});
