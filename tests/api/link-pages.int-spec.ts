import { randomInt } from 'node:crypto';
import { type Client } from 'pg';
import {
  DAY_MS,
  LINKS_PAGE_SIZE,
  LINKS_QUERY_MESSAGES,
  NEXT_CURSOR_HEADER,
  SHORT_CODE_ALPHABET,
  TOTAL_COUNT_HEADER,
  type ShortLink,
  type UserData,
} from '@shortener/contracts';
import { type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import { someAddress, startUsersStack, type UsersStack } from './support/users-stack';
import { signIn } from './support/sign-in';

// A user with more links than a page: /api/user carries the newest page in SPEC's shape,
// GET /api/links pages through the rest and searches them. Links are written straight
// into PostgreSQL (and their visit counts into analytics' table), as many as a test needs,
// at known times.

const run = Date.now();
const USERS = {
  carol: { sub: `carol-${run}`, name: 'Carol', picture: '', email: 'c@example.com' },
  dave: { sub: `dave-${run}`, name: 'Dave', picture: '', email: 'd@example.com' },
};
const SEEDED = 250;

function someCode(): string {
  return Array.from({ length: 7 }, () => SHORT_CODE_ALPHABET[randomInt(62)]).join('');
}

describe('a user with more links than a page', () => {
  let started: UsersStack;
  let stack: Stack;
  let db: Client;
  let carol: Browser;
  let dave: Browser;
  let carolId: string;
  let daveId: string;
  /** Carol's live links as seeded, newest first (the times are whole milliseconds apart). */
  let seeded: { urlID: string; originalUrl: string; visitCount: number }[];

  async function get(browser: Browser, path: string): Promise<Response> {
    return browser.api(`${stack.url}${path}`);
  }

  async function page(browser: Browser, query: Record<string, string> = {}) {
    const response = await get(browser, `/api/links?${new URLSearchParams(query).toString()}`);
    expect(response.status).toBe(200);
    return {
      links: (await response.json()) as ShortLink[],
      next: response.headers.get(NEXT_CURSOR_HEADER),
    };
  }

  /** Every page of a listing, the cursor of each followed; `between` runs after each page. */
  async function allPages(
    browser: Browser,
    query: Record<string, string> = {},
    between: () => Promise<void> = async () => {},
  ): Promise<{ links: ShortLink[]; pages: number }> {
    const links: ShortLink[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const answer = await page(browser, cursor === null ? query : { ...query, cursor });
      links.push(...answer.links);
      pages += 1;
      cursor = answer.next;
      await between();
    } while (cursor !== null && pages < 100);
    return { links, pages };
  }

  async function ownerOf(browser: Browser): Promise<string> {
    const shortened = await browser.api(
      `${stack.url}/api/shorten/?url=${encodeURIComponent('https://example.com/first')}&days=60`,
      { method: 'POST' },
    );
    expect(shortened.status).toBe(201);
    const { url } = (await shortened.json()) as { url: string };
    const { rows } = await db.query<{ owner_id: string }>(
      'SELECT owner_id FROM links.links WHERE code = $1',
      [url],
    );
    await db.query('DELETE FROM links.links WHERE code = $1', [url]);
    return rows[0]!.owner_id;
  }

  /** Links of one owner at the given times (microseconds since the epoch, as text). */
  async function insert(
    owner: string,
    links: { code: string; url: string; micros: bigint; expired?: boolean; visits?: number }[],
  ): Promise<void> {
    await db.query(
      `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at)
       SELECT code, url, $1, timestamptz 'epoch' + micros * interval '1 microsecond',
              CASE WHEN expired THEN now() - interval '1 hour' ELSE now() + interval '30 days' END
       FROM unnest($2::text[], $3::text[], $4::bigint[], $5::boolean[]) AS t(code, url, micros, expired)`,
      [
        owner,
        links.map((link) => link.code),
        links.map((link) => link.url),
        links.map((link) => link.micros.toString()),
        links.map((link) => link.expired ?? false),
      ],
    );
    const counted = links.filter((link) => (link.visits ?? 0) > 0);
    await db.query(
      `INSERT INTO analytics.link_stats (url_id, visit_count)
       SELECT * FROM unnest($1::varchar[], $2::bigint[])`,
      [counted.map((link) => link.code), counted.map((link) => link.visits)],
    );
  }

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: { TRUSTED_PROXIES: '127.0.0.0/8,::1', SIGN_IN_RATE_LIMIT: '1000' },
    });
    ({ stack, db } = started);
    carol = new Browser({ 'x-forwarded-for': someAddress() });
    dave = new Browser({ 'x-forwarded-for': someAddress() });
    await signIn(carol, stack.url, 'carol');
    await signIn(dave, stack.url, 'dave');
    carolId = await ownerOf(carol);
    daveId = await ownerOf(dave);

    // Carol: SEEDED live links a millisecond apart, but for ten (the 96th to 105th newest,
    // across the end of the first page) sharing one millisecond: pairs of them a microsecond
    // apart, the two of a pair at the same microsecond (ordered by code), the first page
    // ending inside a pair. Expired ones among them are never listed.
    const base = BigInt(Date.now() - DAY_MS) * 1000n;
    const rows = Array.from({ length: SEEDED }, (_, i) => {
      const tied = i >= 145 && i < 155;
      const micros = tied
        ? base + 145_000n + BigInt(Math.floor((i + 1) / 2))
        : base + BigInt(i) * 1000n;
      return {
        code: someCode(),
        url: `https://Example.com/${i % 7 === 0 ? 'Needle' : 'hay'}/${run}/${i}`,
        micros,
        visits: i % 3,
      };
    });
    const expired = Array.from({ length: 5 }, (_, i) => ({
      code: someCode(),
      url: `https://example.com/expired/${run}/${i}`,
      micros: base + BigInt(i) * 1000n + 1n,
      expired: true,
    }));
    await insert(carolId, [...rows, ...expired]);
    // Dave's links look like Carol's (Needle included) and sit at the same times.
    await insert(
      daveId,
      Array.from({ length: 20 }, (_, i) => ({
        code: someCode(),
        url: `https://example.com/Needle/dave/${run}/${i}`,
        micros: base + BigInt(i) * 1000n + 2n,
      })),
    );
    const listed = await db.query<{ code: string; original_url: string }>(
      `SELECT code, original_url FROM links.links WHERE owner_id = $1 AND expires_at > now()
       -- Newest first to the microsecond, then by code in the database's collation.
       ORDER BY created_at DESC, code DESC`,
      [carolId],
    );
    const visits = new Map(rows.map((row) => [row.code, row.visits]));
    seeded = listed.rows.map((row) => ({
      urlID: row.code,
      originalUrl: row.original_url,
      visitCount: visits.get(row.code) ?? 0,
    }));
    expect(seeded).toHaveLength(SEEDED);
  });

  afterAll(async () => {
    await started?.stop();
  });

  it(`answers /api/user in SPEC's shape with the newest ${LINKS_PAGE_SIZE} links and a cursor for the rest`, async () => {
    const response = await get(carol, '/api/user');
    expect(response.status).toBe(200);
    const user = (await response.json()) as UserData;
    expect(Object.keys(user).sort()).toEqual(['fullName', 'profilePicture', 'urls']);
    expect(user.fullName).toBe('Carol');
    expect(user.urls).toHaveLength(LINKS_PAGE_SIZE);
    for (const link of user.urls) {
      expect(Object.keys(link).sort()).toEqual([
        'createdAt',
        'expiresAt',
        'originalUrl',
        'urlID',
        'visitCount',
      ]);
    }
    expect(user.urls.map(({ urlID, visitCount }) => ({ urlID, visitCount }))).toEqual(
      seeded.slice(0, LINKS_PAGE_SIZE).map(({ urlID, visitCount }) => ({ urlID, visitCount })),
    );
    expect(response.headers.get(NEXT_CURSOR_HEADER)).toEqual(expect.any(String));
  });

  it("pages through every live link newest first, /api/user's cursor continuing its list", async () => {
    const first = await get(carol, '/api/user');
    const user = (await first.json()) as UserData;
    const rest = await allPages(carol, { cursor: first.headers.get(NEXT_CURSOR_HEADER)! });
    const listed = [...user.urls, ...rest.links];
    expect(listed.map((link) => link.urlID)).toEqual(seeded.map((link) => link.urlID));
    expect(listed.map((link) => link.visitCount)).toEqual(seeded.map((link) => link.visitCount));
    expect(listed.map((link) => link.originalUrl)).toEqual(seeded.map((link) => link.originalUrl));
    expect(rest.pages).toBe(Math.ceil((SEEDED - LINKS_PAGE_SIZE) / LINKS_PAGE_SIZE));

    // The first page of /api/links is /api/user's list.
    const again = await page(carol);
    expect(again.links).toEqual(user.urls);
  });

  it('neither repeats nor skips a link while links are created between pages', async () => {
    const created: string[] = [];
    const shorten = async () => {
      const response = await carol.api(
        `${stack.url}/api/shorten/?url=${encodeURIComponent(`https://example.com/meanwhile/${created.length}`)}&days=30`,
        { method: 'POST' },
      );
      expect(response.status).toBe(201);
      created.push(((await response.json()) as { url: string }).url);
    };
    const before = (await page(carol)).links.map((link) => link.urlID);
    const { links } = await allPages(carol, {}, shorten);
    const codes = links.map((link) => link.urlID);
    expect(new Set(codes).size).toBe(codes.length);
    // The first page was read before any of the new links: it and the pages after it are
    // exactly the links that were there (and the first page's were the newest).
    expect(codes.slice(0, LINKS_PAGE_SIZE)).toEqual(before);
    expect(codes.filter((code) => !created.includes(code))).toEqual(
      seeded.map((link) => link.urlID),
    );
    // A new first page starts with them, newest first.
    const fresh = await page(carol);
    expect(fresh.links.slice(0, created.length).map((link) => link.urlID)).toEqual(
      [...created].reverse(),
    );
    await db.query('DELETE FROM links.links WHERE code = ANY($1::varchar[])', [created]);
  });

  it('says how many live links there are on every page, and how many match a search', async () => {
    const user = await get(carol, '/api/user');
    expect(user.headers.get(TOTAL_COUNT_HEADER)).toBe(String(SEEDED));
    let cursor = user.headers.get(NEXT_CURSOR_HEADER);
    while (cursor !== null) {
      const next = await get(carol, `/api/links?cursor=${encodeURIComponent(cursor)}`);
      expect(next.headers.get(TOTAL_COUNT_HEADER)).toBe(String(SEEDED));
      cursor = next.headers.get(NEXT_CURSOR_HEADER);
    }
    const needles = seeded.filter((link) => link.originalUrl.includes('Needle')).length;
    const found = await get(carol, '/api/links?q=needle');
    expect(found.headers.get(TOTAL_COUNT_HEADER)).toBe(String(needles));
    expect((await get(dave, '/api/links')).headers.get(TOTAL_COUNT_HEADER)).toBe('20');
  });

  it('pages through every live link soonest to expire first (ties by code), a link created meanwhile neither repeating nor skipping one', async () => {
    // Expiries an hour apart for every fifth link, so that ties cross the pages' ends.
    await db.query(
      `UPDATE links.links SET expires_at = now() + interval '1 day' +
         (abs(hashtext(code)) % 50) * interval '1 hour'
       WHERE owner_id = $1 AND expires_at > now()`,
      [carolId],
    );
    const { rows } = await db.query<{ code: string }>(
      `SELECT code FROM links.links WHERE owner_id = $1 AND expires_at > now()
       ORDER BY expires_at, code`,
      [carolId],
    );
    const created: string[] = [];
    const { links, pages } = await allPages(carol, { sort: 'expiring' }, async () => {
      const response = await carol.api(
        `${stack.url}/api/shorten/?url=${encodeURIComponent(`https://example.com/soon/${created.length}`)}&days=7`,
        { method: 'POST' },
      );
      expect(response.status).toBe(201);
      created.push(((await response.json()) as { url: string }).url);
    });
    const codes = links.map((link) => link.urlID).filter((code) => !created.includes(code));
    expect(codes).toEqual(rows.map((row) => row.code));
    expect(pages).toBe(Math.ceil(SEEDED / LINKS_PAGE_SIZE));
    // Each with its visit count, as newest first has it.
    const visits = new Map(seeded.map((link) => [link.urlID, link.visitCount]));
    for (const link of links.filter((shown) => !created.includes(shown.urlID))) {
      expect(link.visitCount).toBe(visits.get(link.urlID));
    }
    await db.query('DELETE FROM links.links WHERE code = ANY($1::varchar[])', [created]);
    await db.query(
      `UPDATE links.links SET expires_at = now() + interval '30 days'
       WHERE owner_id = $1 AND expires_at > now()`,
      [carolId],
    );
  });

  it('pages through every live link most visited first (ties by code), and through a search so', async () => {
    const expected = [...seeded].sort(
      (a, b) => b.visitCount - a.visitCount || (a.urlID < b.urlID ? -1 : a.urlID > b.urlID ? 1 : 0),
    );
    const user = await get(carol, '/api/links?sort=visits');
    expect(user.headers.get(TOTAL_COUNT_HEADER)).toBe(String(SEEDED));
    const { links, pages } = await allPages(carol, { sort: 'visits' });
    expect(links.map((link) => [link.urlID, link.visitCount])).toEqual(
      expected.map((link) => [link.urlID, link.visitCount]),
    );
    expect(links.map((link) => link.originalUrl)).toEqual(expected.map((link) => link.originalUrl));
    expect(pages).toBe(Math.ceil(SEEDED / LINKS_PAGE_SIZE));
    const needles = await allPages(carol, { sort: 'visits', q: 'NEEDLE' });
    expect(needles.links.map((link) => link.urlID)).toEqual(
      expected.filter((link) => link.originalUrl.includes('Needle')).map((link) => link.urlID),
    );
    // Dave sees his own only, whoever's cursor he is given.
    const carols = (await page(carol, { sort: 'visits' })).next!;
    const daves = await allPages(dave, { sort: 'visits', cursor: carols });
    const carolsCodes = new Set(seeded.map((link) => link.urlID));
    expect(daves.links.filter((link) => carolsCodes.has(link.urlID))).toEqual([]);
  });

  it("refuses a sort it does not know, and a cursor of another sort's pages, with 400", async () => {
    const bogus = await get(carol, '/api/links?sort=visits-desc');
    expect(bogus.status).toBe(400);
    expect(await bogus.json()).toEqual({ message: LINKS_QUERY_MESSAGES.sort });
    const newest = (await page(carol)).next!;
    const expiring = (await page(carol, { sort: 'expiring' })).next!;
    const visits = (await page(carol, { sort: 'visits' })).next!;
    for (const query of [
      { cursor: newest, sort: 'expiring' },
      { cursor: expiring, sort: 'newest' },
      { cursor: expiring },
      { cursor: visits },
      { cursor: visits, sort: 'expiring' },
      { cursor: newest, sort: 'visits' },
    ] as Record<string, string>[]) {
      const response = await get(carol, `/api/links?${new URLSearchParams(query).toString()}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ message: LINKS_QUERY_MESSAGES.cursor });
    }
  });

  it('says nothing more follows on the last page, however many links it holds', async () => {
    const { links, pages } = await allPages(carol);
    expect(pages).toBe(Math.ceil(SEEDED / LINKS_PAGE_SIZE));
    expect(links).toHaveLength(SEEDED);
    const last = await page(dave);
    expect(last.links).toHaveLength(20);
    expect(last.next).toBeNull();
  });

  it.each([
    ['not base64url', '!!!'],
    ['base64url of anything else', Buffer.from('hello world').toString('base64url')],
    ['a time without a code', Buffer.from('1764000000000000:').toString('base64url')],
    ['a code with a quote', Buffer.from("1764000000000000:x' OR '1'='1").toString('base64url')],
    ['a time of 18 digits', Buffer.from(`${'1'.repeat(18)}:AbC1234`).toString('base64url')],
    ['too long', 'A'.repeat(201)],
  ])('refuses a malformed cursor (%s) with 400 and a message', async (_what, cursor) => {
    const response = await get(carol, `/api/links?cursor=${encodeURIComponent(cursor)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: LINKS_QUERY_MESSAGES.cursor });
  });

  it('refuses two cursors, two searches and an over-long search with 400 and a message', async () => {
    const cursor = (await page(carol)).next!;
    const two = await get(carol, `/api/links?cursor=${cursor}&cursor=${cursor}`);
    expect(two.status).toBe(400);
    expect(await two.json()).toEqual({ message: LINKS_QUERY_MESSAGES.oneCursor });
    for (const query of ['q=a&q=b', `q=${'a'.repeat(201)}`]) {
      const response = await get(carol, `/api/links?${query}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ message: LINKS_QUERY_MESSAGES.search });
    }
  });

  it("never lists someone else's links, whoever's cursor is given", async () => {
    const carols = (await page(carol)).next!;
    const daves = await allPages(dave, { cursor: carols });
    const carolsCodes = new Set(seeded.map((link) => link.urlID));
    for (const link of daves.links) expect(carolsCodes.has(link.urlID)).toBe(false);
    expect(daves.links).toHaveLength(20);
    const { rows } = await db.query<{ owner_id: string }>(
      'SELECT DISTINCT owner_id FROM links.links WHERE code = ANY($1::varchar[])',
      [daves.links.map((link) => link.urlID)],
    );
    expect(rows).toEqual([{ owner_id: daveId }]);
    const search = await allPages(dave, { q: 'needle' });
    expect(search.links).toHaveLength(20);
    expect(search.links.every((link) => link.originalUrl.includes('/dave/'))).toBe(true);
  });

  it('finds links by destination, in any letter case, page by page', async () => {
    const expected = seeded.filter((link) => link.originalUrl.includes('/Needle/'));
    expect(expected.length).toBeGreaterThan(LINKS_PAGE_SIZE / 3);
    for (const q of ['needle', 'NEEDLE', 'example.com/needle/']) {
      const found = await allPages(carol, { q });
      expect(found.links.map((link) => link.urlID)).toEqual(expected.map((link) => link.urlID));
    }
    const one = seeded[137]!;
    const exact = await page(carol, { q: one.originalUrl.toUpperCase() });
    expect(exact.links.map((link) => link.urlID)).toEqual([one.urlID]);
    expect(exact.links[0]!.visitCount).toBe(one.visitCount);
    expect(exact.next).toBeNull();
    expect((await page(carol, { q: 'nothing-like-this' })).links).toEqual([]);
  });

  it('pages through a search with more matches than a page', async () => {
    const found = await allPages(carol, { q: 'hay' });
    const expected = seeded.filter((link) => link.originalUrl.includes('/hay/'));
    expect(expected.length).toBeGreaterThan(LINKS_PAGE_SIZE);
    expect(found.links.map((link) => link.urlID)).toEqual(expected.map((link) => link.urlID));
  });

  it('finds a link by its code, in any letter case, and treats an empty search as none', async () => {
    const one = seeded[200]!;
    for (const q of [one.urlID, one.urlID.toLowerCase(), one.urlID.slice(1, 6)]) {
      const found = await allPages(carol, { q });
      expect(found.links.map((link) => link.urlID)).toContain(one.urlID);
      for (const link of found.links) {
        const text = `${link.urlID} ${link.originalUrl}`.toLowerCase();
        expect(text).toContain(q.toLowerCase());
      }
    }
    expect((await page(carol, { q: '' })).links).toEqual((await page(carol)).links);
  });

  it('answers 401 to a caller who is not signed in', async () => {
    const response = await get(new Browser({ 'x-forwarded-for': someAddress() }), '/api/links');
    expect(response.status).toBe(401);
  });
});
