import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { startOAuth2Mock, type OAuth2Mock, type Stack } from '@shortener/testkit';
import { ACCOUNT_VISITS_CSV_COLUMNS } from '@shortener/contracts';
import {
  ARTIFACTS,
  DESKTOP,
  eventually,
  type LandingServer,
  launchChromium,
  screenshots,
  startJourneyStack,
  startLandingServer,
  visible,
} from './support/browser';

// The account's Analytics page in Chromium against the whole stack: two links, one of them a
// campaign's, visited from known addresses and agents through /r/; the page reached from the
// top bar shows their sum, each list's entry filters the page (in its URL, chips to remove),
// a bookmarked view opens as it was left, a custom period counts the same days, and a visit
// made while the page is open shows up without a reload. Each state passes axe-core and is
// pictured at 1280 and 390 px (screenshots()).

const RUN = Date.now().toString(36);
const FULL_NAME = 'Ana Analytics';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** What a list reads, one "name visits" entry a line. */
async function entries(list: Locator): Promise<string[]> {
  return (await list.getByRole('listitem').allInnerTexts()).map((text) =>
    text.replace(/\s+/g, ' ').trim(),
  );
}

describe('the Analytics page', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let landing: LandingServer;
  let browser: Browser;
  let page: Page;
  /** The campaign's link, and a plain one. */
  let campaign = '';
  let plain = '';
  const targets = new Map<string, string>();
  const journal: string[] = [];
  const analyticsCalls: string[] = [];

  const total = (term: string): Locator =>
    page.locator(`xpath=//dt[normalize-space(.)="${term}"]/following-sibling::dd[1]`).first();
  const list = (title: string): Locator => page.getByRole('region', { name: title });
  const chips = (): Locator => page.getByRole('list', { name: 'Filters' });

  async function shorten(target: string): Promise<string> {
    await page.goto(`${stack.url}/`);
    await page.getByLabel('URL to shorten').fill(target);
    await page.getByRole('button', { name: 'Shorten', exact: true }).click();
    await visible(page.getByRole('button', { name: 'Copy', exact: true }));
    const code = (await page.getByLabel('URL to shorten').inputValue()).slice(
      `${stack.url}/r/`.length,
    );
    expect(code).toMatch(/^[0-9A-Za-z]{7}$/);
    targets.set(code, target);
    return code;
  }

  /** One visit of a short link, as the edge passes it on (the address in X-Forwarded-For). */
  async function visit(code: string, ip: string, userAgent: string): Promise<void> {
    const response = await fetch(`${stack.get('redirect').url}/r/${code}`, {
      redirect: 'manual',
      headers: { 'x-forwarded-for': ip, 'user-agent': userAgent },
    });
    expect({ status: response.status, location: response.headers.get('location') }).toEqual({
      status: 302,
      location: targets.get(code),
    });
  }

  /** Pictured from the top, so the sticky top bar stays above the page, not over it. */
  async function picture(screen: string): Promise<void> {
    await page.evaluate(() => {
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0);
    });
    await screenshots(page, screen);
  }

  beforeAll(async () => {
    landing = await startLandingServer();
    provider = await startOAuth2Mock({
      ana: { sub: `analytics-${RUN}`, name: FULL_NAME, picture: '', email: 'ana@example.com' },
    });
    stack = await startJourneyStack(provider);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    context.setDefaultTimeout(15_000);
    context.setDefaultNavigationTimeout(20_000);
    context.on('weberror', (error) => journal.push(`page error: ${error.error().message}`));
    context.on('console', (message) => {
      if (message.type() === 'error') journal.push(`console error: ${message.text()}`);
    });
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === stack.url && url.pathname === '/api/analytics') {
        analyticsCalls.push(`${url.pathname}${url.search}`);
      }
    });
    page = await context.newPage();
    await page.goto(`${stack.url}/profile`);
    await page.getByRole('link', { name: 'Sign in with Google', exact: true }).click();
    await visible(page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 30_000);

    campaign = await shorten(
      `${landing.origin}/landing?run=${RUN}&utm_source=newsletter&utm_medium=email&utm_campaign=spring`,
    );
    plain = await shorten(`${landing.origin}/landing?run=${RUN}&plain=1`);
    // The campaign: two people in the US on Windows, one in Australia on an iPhone; the
    // plain link: one person in the Netherlands.
    await visit(campaign, '8.8.8.8', CHROME_WINDOWS);
    await visit(campaign, '8.8.4.4', CHROME_WINDOWS);
    await visit(campaign, '1.1.1.1', SAFARI_IPHONE);
    await visit(plain, '193.0.14.129', CHROME_WINDOWS);
  }, 150_000);

  afterAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(
      path.join(ARTIFACTS, 'e2e-analytics.log'),
      [...journal, '=== services', stack?.output() ?? ''].join('\n'),
    );
    await page?.context().close();
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
    await landing?.stop();
  });

  it('is reached from the top bar and sums every link', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Analytics' })
      .click();
    await page.waitForURL(`${stack.url}/analytics`);
    await visible(page.getByRole('heading', { level: 1, name: 'Analytics' }));
    expect(await page.title()).toMatch(/^Analytics · /);
    // The visits reach analytics through Kafka in their own time: the page counts again.
    await eventually(
      async () => {
        await page.reload();
        expect(await total('Visits').textContent({ timeout: 10_000 })).toBe('4');
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(await total('People').textContent()).toBe('4');
    expect(await total('Unique visitors').textContent()).toBe('4');
    expect(await entries(list('Links'))).toEqual([`${campaign} 3`, `${plain} 1`]);
    expect(await entries(list('Countries'))).toEqual([
      'United States (US) 2',
      'Australia (AU) 1',
      'Netherlands (NL) 1',
    ]);
    expect(await entries(list('Devices'))).toEqual(['Desktop 3', 'Phone 1']);
    // The campaign's lists are there; what they count is the API's (its int-spec).
    for (const title of ['UTM sources', 'UTM media', 'UTM campaigns']) await visible(list(title));
    await visible(page.getByRole('img', { name: /^Visits per day: 4 by people and 0 by bots/ }));
    expect(analyticsCalls).toContain('/api/analytics');
    await picture('analytics');
  });

  it('filters by an entry of a list, in its URL, and its chip removes the filter', async () => {
    await list('Countries')
      .getByRole('button', { name: /Australia/ })
      .click();
    await page.waitForURL(`${stack.url}/analytics?country=AU`);
    await eventually(async () => expect(await total('Visits').textContent()).toBe('1'));
    expect(await entries(list('Links'))).toEqual([`${campaign} 1`]);
    expect(await entries(list('Devices'))).toEqual(['Phone 1']);
    expect(await entries(chips())).toEqual(['Country: Australia (AU) ×']);

    await list('Devices').getByRole('button', { name: /Phone/ }).click();
    await page.waitForURL(`${stack.url}/analytics?country=AU&device=mobile`);
    // The count is 1 before and after: wait for the new answer to be shown.
    await eventually(() =>
      expect(analyticsCalls).toContain('/api/analytics?country=AU&device=mobile'),
    );
    await eventually(async () =>
      expect(await page.locator('.stats__body[aria-busy="true"]').count()).toBe(0),
    );
    expect(await total('Visits').textContent()).toBe('1');
    await picture('analytics-filtered');

    await page.getByRole('button', { name: 'Remove filter Country: Australia (AU)' }).click();
    await page.waitForURL(`${stack.url}/analytics?device=mobile`);
    await page.getByRole('button', { name: 'Remove filter Device: Phone' }).click();
    await page.waitForURL(`${stack.url}/analytics`);
    await eventually(async () => expect(await total('Visits').textContent()).toBe('4'));
  });

  it('opens a bookmarked view as it was left: range and filters', async () => {
    await page.goto(`${stack.url}/analytics?range=30d&country=US&referrer=(direct)`);
    await eventually(async () => expect(await total('Visits').textContent()).toBe('2'));
    expect(
      await page.getByRole('button', { name: '30d', exact: true }).getAttribute('aria-pressed'),
    ).toBe('true');
    expect(await entries(list('Links'))).toEqual([`${campaign} 2`]);
    expect(await entries(chips())).toEqual(['Country: United States (US) ×', 'Referrer: Direct ×']);
    expect(analyticsCalls).toContain('/api/analytics?range=30d&country=US&referrer=(direct)');
  });

  it("downloads the view's visits as CSV: a row each, with its link, as filtered", async () => {
    await page.goto(`${stack.url}/analytics?range=30d&country=US&referrer=(direct)`);
    await eventually(async () => expect(await total('Visits').textContent()).toBe('2'));
    const exportSection = page.getByRole('region', { name: 'Export' });
    const download = page.waitForEvent('download');
    await exportSection.getByRole('button', { name: 'Download CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('analytics-visits.csv');
    const [header, ...rows] = (await readFile(await file.path()))
      .toString('utf8')
      .trim()
      .split(/\r?\n/)
      .map((line) => line.split(','));
    expect(header).toEqual([...ACCOUNT_VISITS_CSV_COLUMNS]);
    const at = (name: string) => ACCOUNT_VISITS_CSV_COLUMNS.indexOf(name as never);
    expect(rows.map((cells) => [cells[at('link')], cells[at('country')]])).toEqual([
      [campaign, 'US'],
      [campaign, 'US'],
    ]);
  });

  it('counts a custom period of whole days', async () => {
    await page.goto(`${stack.url}/analytics?link=${plain}`);
    await eventually(async () => expect(await total('Visits').textContent()).toBe('1'));
    await page.getByRole('button', { name: 'Custom', exact: true }).click();
    const form = page.getByRole('form', { name: 'Custom range' });
    const today = new Date().toISOString().slice(0, 10);
    const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    await form.getByLabel('From').fill(weekAgo);
    await form.getByLabel('To').fill(today);
    await form.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(
      `${stack.url}/analytics?from=${weekAgo}&to=${today}T23%3A59%3A59Z&link=${plain}`,
    );
    await eventually(async () =>
      expect(
        await page
          .getByText('vs previous period')
          .or(page.getByText('none in previous period'))
          .count(),
      ).toBeGreaterThan(0),
    );
    expect(await total('Visits').textContent()).toBe('1');
    await picture('analytics-custom');
  });

  it('shows a visit made while the page is open within seconds, without a reload', async () => {
    await page.goto(`${stack.url}/analytics`);
    await eventually(async () => expect(await total('Visits').textContent()).toBe('4'));
    // The account's live stream is open.
    await eventually(
      async () => expect(await page.locator('.stats__live').textContent()).toMatch(/^Live/),
      { timeoutMs: 15_000 },
    );
    await page.evaluate(() => {
      (globalThis as unknown as { stillTheSamePage: boolean }).stillTheSamePage = true;
    });
    const visitedAt = Date.now();
    await visit(plain, '193.0.14.129', SAFARI_IPHONE);
    await eventually(async () => expect(await total('Visits').textContent()).toBe('5'), {
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    const seconds = (Date.now() - visitedAt) / 1000;
    journal.push(`live visit shown after ${seconds.toFixed(1)} s`);
    // Counted again after the live visit, not at the next 15 s poll.
    expect(seconds).toBeLessThan(10);
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { stillTheSamePage?: boolean }).stillTheSamePage,
      ),
    ).toBe(true);
    expect(journal.filter((line) => line.startsWith('page error'))).toEqual([]);
  });
});
