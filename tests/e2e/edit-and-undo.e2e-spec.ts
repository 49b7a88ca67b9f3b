import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { DELETE_UNDO_OFFER_MS, TARGET_URL_MESSAGES } from '@shortener/contracts';
import { startOAuth2Mock, type OAuth2Mock, type Stack } from '@shortener/testkit';
import {
  ARTIFACTS,
  definition,
  DESKTOP,
  eventually,
  type LandingServer,
  launchChromium,
  screenshots,
  startJourneyStack,
  startLandingServer,
  visible,
} from './support/browser';

// Issue 28, items 2 and 6, in Chromium against the whole stack from its builds: the detail
// page's Edit (a new destination and expiry, a refusal shown beside Save, the list and the
// detail showing the new values, the short link following), and Delete with Undo on the
// detail page and in the list (the link stops redirecting at once; Undo brings it back whole).

const RUN = Date.now().toString(36);
const FULL_NAME = 'Edith Editor';
const DAY_S = 24 * 60 * 60;

/** 'Expires In' as shown, e.g. '29d 23h 59m 58s', in seconds. */
function parseRemaining(text: string | null): number {
  const match = /^(\d+)d (\d{2})h (\d{2})m (\d{2})s$/.exec(text?.trim() ?? '');
  if (!match) throw new Error(`not a remaining time: ${JSON.stringify(text)}`);
  const [days, hours, minutes, seconds] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
  ];
  return ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
}

describe('editing a link and undoing a delete in the browser', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let landing: LandingServer;
  let browser: Browser;
  let page: Page;
  const journal: string[] = [];

  const target = (name: string): string => `${landing.origin}/landing?journey=${name}&run=${RUN}`;

  /** Where /r/{code} sends a browser now (HEAD: no visit), or null for a 404. */
  async function redirectsTo(code: string): Promise<string | null> {
    const response = await fetch(`${stack.get('redirect').url}/r/${code}`, {
      method: 'HEAD',
      redirect: 'manual',
    });
    if (response.status === 404) return null;
    expect(response.status).toBe(302);
    return response.headers.get('location');
  }

  /** Shortens `url` for 7 days on the home page and answers its code. */
  async function shorten(url: string): Promise<string> {
    await page.goto(`${stack.url}/`);
    await page.getByLabel('URL to shorten').fill(url);
    await page.getByRole('button', { name: 'Shorten', exact: true }).click();
    await visible(page.getByRole('button', { name: 'Copy', exact: true }));
    const code = (await page.getByLabel('URL to shorten').inputValue()).slice(
      `${stack.url}/r/`.length,
    );
    expect(code).toMatch(/^[0-9A-Za-z]{7}$/);
    return code;
  }

  /** The list's item of a link: the one showing its short link. */
  const listItem = (code: string): Locator =>
    page.getByRole('listitem').filter({ hasText: `/r/${code}` });
  const notice = (): Locator => page.getByRole('status').filter({ hasText: 'Link deleted.' });
  const undo = (): Locator => page.getByRole('button', { name: 'Undo', exact: true });

  beforeAll(async () => {
    landing = await startLandingServer();
    provider = await startOAuth2Mock({
      edith: { sub: `edit-${RUN}`, name: FULL_NAME, picture: '', email: 'edith@example.com' },
    });
    stack = await startJourneyStack(provider);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    context.setDefaultTimeout(15_000);
    context.setDefaultNavigationTimeout(20_000);
    context.on('weberror', (error) => journal.push(`page error: ${error.error().message}`));
    page = await context.newPage();
    await page.goto(`${stack.url}/profile`);
    await page.getByRole('link', { name: 'Sign in with Google', exact: true }).click();
    await visible(page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 30_000);
  }, 150_000);

  afterAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(
      path.join(ARTIFACTS, 'e2e-edit-and-undo.log'),
      [...journal, '=== services', stack?.output() ?? ''].join('\n'),
    );
    await page?.context().close();
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
    await landing?.stop();
  });

  it('edits the destination and the expiry on the detail page; the list, the detail and the short link follow', async () => {
    const before = target('before-edit');
    const after = target('after-edit');
    const code = await shorten(before);
    await page.goto(`${stack.url}/profile`);
    // The list is now cached in the browser (SPEC: userData): the edit must update it.
    await visible(listItem(code));
    await listItem(code).getByRole('button', { name: 'Details' }).click();
    await visible(page.getByRole('heading', { level: 1, name: /before-edit/ }));

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit link' });
    const destination = form.getByLabel('Destination', { exact: true });
    expect(await destination.inputValue()).toBe(before);

    // The server's refusal is shown beside Save, and nothing changes. (A scheme other than
    // http(s) is refused by the form itself before it asks.)
    await destination.fill('https://user:secret@files.example.com/report');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await visible(form.getByRole('alert').filter({ hasText: TARGET_URL_MESSAGES.credentials }));
    await screenshots(page, 'edit-link-refused');
    expect(await redirectsTo(code)).toBe(before);

    await destination.fill(after);
    await form.getByRole('button', { name: '60 days from now' }).click();
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.waitFor({ state: 'detached' });

    await visible(page.getByRole('heading', { level: 1, name: /after-edit/ }));
    const detailLeft = parseRemaining(await definition(page, 'Expires in').textContent());
    expect(detailLeft).toBeGreaterThan(59 * DAY_S);
    // Every redirect follows at once.
    expect(await redirectsTo(code)).toBe(after);

    await page.getByRole('button', { name: 'Back' }).click();
    await visible(listItem(code).filter({ hasText: 'after-edit' }));
    expect(
      parseRemaining(await definition(listItem(code), 'Expires In').textContent()),
    ).toBeGreaterThan(59 * DAY_S);
    // After a reload, from the browser's cache as from the server: the new values.
    await page.reload();
    await visible(listItem(code).filter({ hasText: 'after-edit' }));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await visible(listItem(code).filter({ hasText: 'after-edit' }));
  });

  it('deletes on the detail page with Undo: the link stops redirecting, and Undo brings it back whole', async () => {
    const url = target('undo-on-detail');
    const code = await shorten(url);
    // A visit, counted before the delete, must be there after the undo.
    expect(
      (await fetch(`${stack.get('redirect').url}/r/${code}`, { redirect: 'manual' })).status,
    ).toBe(302);
    await page.goto(`${stack.url}/profile`);
    await eventually(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        expect(await definition(listItem(code), 'visitCount').textContent()).toBe('1');
      },
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    await page.goto(`${stack.url}/profile/${code}`);
    await visible(page.getByRole('heading', { level: 1, name: /undo-on-detail/ }));

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL(`${stack.url}/profile`);
    await visible(notice());
    expect(await listItem(code).count()).toBe(0);
    expect(await redirectsTo(code)).toBeNull();

    await undo().click();
    await visible(listItem(code));
    await notice().waitFor({ state: 'detached' });
    expect(await definition(listItem(code), 'visitCount').textContent()).toBe('1');
    expect(await redirectsTo(code)).toBe(url);
    await listItem(code).getByRole('button', { name: 'Details' }).click();
    await visible(page.getByRole('heading', { level: 1, name: /undo-on-detail/ }));
  });

  it('deletes in the list with Undo; once the offer is over, the link stays deleted', async () => {
    const url = target('undo-in-list');
    const code = await shorten(url);
    await page.goto(`${stack.url}/profile`);
    await visible(listItem(code));

    await listItem(code).getByRole('button', { name: 'Delete' }).click();
    await visible(notice());
    await listItem(code).waitFor({ state: 'detached' });
    expect(await redirectsTo(code)).toBeNull();
    await undo().click();
    await visible(listItem(code));
    expect(await redirectsTo(code)).toBe(url);

    await listItem(code).getByRole('button', { name: 'Delete' }).click();
    await visible(notice());
    // Held while the focus is on it (long enough for the pictures), then offered in full again.
    await undo().focus();
    await screenshots(page, 'delete-undo-offered');
    await visible(notice());
    await page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }).click();
    await notice().waitFor({ state: 'detached', timeout: DELETE_UNDO_OFFER_MS + 5_000 });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }).waitFor();
    expect(await listItem(code).count()).toBe(0);
    expect(await redirectsTo(code)).toBeNull();
  });
});
