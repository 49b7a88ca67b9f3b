import { randomInt } from 'node:crypto';
import { Client } from 'pg';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { LINKS_PAGE_SIZE, SHORT_CODE_ALPHABET } from '@shortener/contracts';
import { startOAuth2Mock, testServers, type OAuth2Mock, type Stack } from '@shortener/testkit';
import {
  DESKTOP,
  eventually,
  launchChromium,
  localStorageOf,
  screenshots,
  startJourneyStack,
  visible,
} from './support/browser';

// Issue 28's long list in Chromium against the whole stack: a user with 250 links (written
// straight into PostgreSQL, a second apart) sees the newest page, loads the next ones with
// 'Load more', searches (typing pauses, then one search), and opens an older link found by
// the search, which was never among those loaded.

const RUN = Date.now().toString(36);
const FULL_NAME = 'Paige Pager';
const SEEDED = 250;
/** Every seventh seeded link's destination holds this word. */
const NEEDLE = `needle${RUN}`;

describe('the profile list of a user with many links', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let db: Client;
  /** Seeded destinations, newest first. */
  const destinations: string[] = [];
  let newestCode = '';
  const apiCalls: string[] = [];

  const items = (): Locator => page.locator('.links__list').getByRole('listitem');
  const loadMore = (): Locator => page.getByRole('button', { name: 'Load more', exact: true });
  /** The destination an item shows, whole (its title: a narrow screen cuts the text). */
  const urlOf = (item: Locator): Promise<string | null> =>
    item.locator('.link-item__url').getAttribute('title');
  const searchBox = (): Locator => page.getByRole('searchbox', { name: 'Search your links' });

  beforeAll(async () => {
    provider = await startOAuth2Mock({
      paige: { sub: `pages-${RUN}`, name: FULL_NAME, picture: '', email: 'paige@example.com' },
    });
    stack = await startJourneyStack(provider);
    db = new Client({ connectionString: testServers.databaseUrl });
    await db.connect();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    context.setDefaultTimeout(15_000);
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) apiCalls.push(`${url.pathname}${url.search}`);
    });
    page = await context.newPage();
    await page.goto(`${stack.url}/profile`);
    await page.getByRole('link', { name: 'Sign in with Google', exact: true }).click();
    await visible(page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 30_000);

    // Whose links these are: the owner of one shortened through the page.
    await page.goto(`${stack.url}/`);
    await page.getByLabel('URL to shorten').fill(`https://example.com/first-${RUN}`);
    await page.getByRole('button', { name: 'Shorten', exact: true }).click();
    await visible(page.getByRole('button', { name: 'Copy', exact: true }));
    const shortLink = await page.getByLabel('URL to shorten').inputValue();
    const { rows } = await db.query<{ owner_id: string }>(
      'DELETE FROM links.links WHERE code = $1 RETURNING owner_id',
      [shortLink.slice(`${stack.url}/r/`.length)],
    );
    const owner = rows[0]!.owner_id;
    const codes = Array.from({ length: SEEDED }, () =>
      Array.from({ length: 7 }, () => SHORT_CODE_ALPHABET[randomInt(62)]).join(''),
    );
    newestCode = codes[0]!;
    // i = 0 is the newest.
    for (let i = 0; i < SEEDED; i += 1) {
      destinations.push(`https://example.com/${i % 7 === 3 ? NEEDLE : 'item'}/${i}`);
    }
    await db.query(
      `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at)
       SELECT code, url, $1, now() - n * interval '1 second', now() + interval '30 days'
       FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(code, url, n)`,
      [owner, codes, destinations],
    );
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await stack?.stop();
    await provider?.stop();
  });

  it('paints the frame of its pages from their HTML, before the script: top bar, the wait, footer', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false });
    try {
      await context.addCookies(await page.context().cookies());
      const frame = await context.newPage();
      for (const pagePath of ['/profile', `/profile/${newestCode}`]) {
        expect((await frame.goto(`${stack.url}${pagePath}`))?.status()).toBe(200);
        const main = frame.getByRole('navigation', { name: 'Main' });
        await visible(main.getByRole('link', { name: 'Profile', exact: true }));
        expect(await main.getByRole('link', { name: 'Sign in', exact: true }).count()).toBe(0);
        await visible(frame.getByRole('status').filter({ hasText: 'Loading....' }));
        const footer = frame.getByRole('navigation', { name: 'Footer' });
        await visible(footer.getByRole('link', { name: 'Privacy policy', exact: true }));
      }
    } finally {
      await context.close();
    }
  });

  it('takes that frame over without showing anything else in between, then shows the page', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    try {
      await context.addCookies(await page.context().cookies());
      // Every state of the page the browser could paint: after each batch of changes.
      await context.addInitScript({
        content: `window.framesSeen = [];
          new MutationObserver(() => {
            const root = document.getElementById('root');
            if (!root) return;
            const bar = root.querySelector('header.top-bar');
            window.framesSeen.push(
              !bar ? 'no top bar'
                : bar.textContent.includes('Sign in') ? 'signed out'
                : root.querySelector('footer') === null ? 'no footer'
                : 'frame');
          }).observe(document, { childList: true, subtree: true });`,
      });
      const detail = await context.newPage();
      await detail.goto(`${stack.url}/profile/${newestCode}`);
      await visible(detail.getByRole('heading', { level: 1, name: new RegExp(destinations[0]!) }));
      const seen = await detail.evaluate(
        () => (globalThis as unknown as { framesSeen: string[] }).framesSeen,
      );
      // From the moment the parser has written the frame, nothing but the frame.
      const fromFrame = seen.slice(Math.max(seen.indexOf('frame'), 0));
      expect(fromFrame.length).toBeGreaterThan(1);
      expect([...new Set(fromFrame)]).toEqual(['frame']);
    } finally {
      await context.close();
    }
  });

  it("shows the newest page, then the next ones with 'Load more', positions continuing", async () => {
    apiCalls.length = 0;
    await page.goto(`${stack.url}/profile`);
    await visible(loadMore());
    expect(await items().count()).toBe(LINKS_PAGE_SIZE);
    expect(await urlOf(items().first())).toBe(destinations[0]);
    expect(apiCalls).toEqual(['/api/user']);
    // The cached userData holds the first page only.
    const cached = JSON.parse(
      (await localStorageOf(page, stack.url)).get('userData') ?? 'null',
    ) as { urls: unknown[] };
    expect(cached.urls).toHaveLength(LINKS_PAGE_SIZE);

    await loadMore().click();
    await eventually(async () => expect(await items().count()).toBe(2 * LINKS_PAGE_SIZE));
    const hundredAndFirst = items().nth(LINKS_PAGE_SIZE);
    expect(await urlOf(hundredAndFirst)).toBe(destinations[LINKS_PAGE_SIZE]);
    expect(await hundredAndFirst.innerText()).toMatch(new RegExp(`^${LINKS_PAGE_SIZE + 1}\\b`));

    await loadMore().click();
    await eventually(async () => expect(await items().count()).toBe(SEEDED));
    await expect(loadMore().count()).resolves.toBe(0);
    expect(await urlOf(items().last())).toBe(destinations[SEEDED - 1]);
    expect(apiCalls.filter((call) => call.startsWith('/api/links'))).toHaveLength(2);
  });

  it("opens a link from far down the list at its page's top; Back returns to the list where it was", async () => {
    await page.goto(`${stack.url}/profile`);
    await visible(loadMore());
    const scrollY = (): Promise<number> =>
      page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY);
    const far = items().nth(40);
    await far.scrollIntoViewIfNeeded();
    const listPosition = await scrollY();
    expect(listPosition).toBeGreaterThan(1000);

    await far.click();
    await visible(page.getByRole('heading', { level: 1, name: new RegExp(destinations[40]!) }));
    expect(await scrollY()).toBe(0);

    await page.goBack();
    await visible(loadMore());
    await eventually(async () => expect(await scrollY()).toBe(listPosition));
  });

  it('searches once typing pauses and opens an older link it finds', async () => {
    await page.goto(`${stack.url}/profile`);
    await visible(loadMore());
    apiCalls.length = 0;
    await searchBox().pressSequentially(NEEDLE.toUpperCase(), { delay: 20 });
    const expected = destinations.filter((url) => url.includes(NEEDLE));
    await eventually(async () => expect(await items().count()).toBe(expected.length));
    expect(await urlOf(items().first())).toBe(expected[0]);
    const searches = apiCalls.filter((call) => call.startsWith('/api/links?q='));
    expect(searches.length).toBeLessThan(NEEDLE.length);
    expect(searches.at(-1)).toBe(`/api/links?q=${NEEDLE.toUpperCase()}`);
    // Pictured and checked with axe at both widths here, with a few dozen links: the whole
    // list of 250 takes minutes to check on a loaded machine.
    await screenshots(page, 'profile-search');

    await searchBox().pressSequentially('-nothing');
    await visible(page.getByText(`No links match “${NEEDLE.toUpperCase()}-nothing”`));

    // The oldest match: never among the links loaded on this page.
    await searchBox().fill(NEEDLE);
    await eventually(async () => expect(await items().count()).toBe(expected.length));
    const oldest = expected[expected.length - 1]!;
    await items().last().click();
    await visible(page.getByRole('heading', { level: 1, name: new RegExp(oldest) }));

    await page.getByRole('button', { name: 'Back' }).click();
    await visible(loadMore());
    expect(await items().count()).toBe(LINKS_PAGE_SIZE);
  });
});
