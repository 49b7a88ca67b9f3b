import { type Browser, type Locator, type Page } from 'playwright-core';
import { startOAuth2Mock, type OAuth2Mock, type Stack } from '@shortener/testkit';
import {
  DESKTOP,
  launchChromium,
  readClipboard,
  screenshots,
  startJourneyStack,
  visible,
} from './support/browser';

// Issue 28's API keys in Chromium against the whole stack, on the settings page of their own
// (issue 37, linked from the profile page): a key made, shown whole once and copied, working
// from a script, listed afterwards without its secret, then revoked and refused. Each state
// passes axe-core and is pictured at 1280 and 390 px (screenshots()).

const RUN = Date.now().toString(36);
const FULL_NAME = 'Kim Keys';
const KEY_PATTERN = /^shk_([0-9A-Za-z]{10})_[0-9A-Za-z]{40}$/;

describe('the API keys on the settings page', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let key = '';
  const journal: string[] = [];

  const section = (): Locator => page.getByRole('region', { name: 'API keys' });
  const keyList = (): Locator => section().getByRole('list', { name: 'Your API keys' });

  /** Pictured from the top, so the sticky top bar stays above the page, not over it. */
  async function picture(screen: string): Promise<void> {
    await page.evaluate(() => {
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0);
    });
    await screenshots(page, screen);
  }

  /** A script's call with the key: no cookie, no X-Requested-With. */
  const withKey = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${stack.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    provider = await startOAuth2Mock({
      kim: { sub: `keys-${RUN}`, name: FULL_NAME, picture: '', email: 'kim@example.com' },
    });
    stack = await startJourneyStack(provider);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
    context.setDefaultTimeout(15_000);
    context.on('weberror', (error) => journal.push(`page error: ${error.error().message}`));
    page = await context.newPage();
    await page.goto(`${stack.url}/profile`);
    await page.getByRole('link', { name: 'Sign in with Google', exact: true }).click();
    await visible(page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 30_000);
  }, 150_000);

  afterAll(async () => {
    await page?.context().close();
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
  });

  it('are on a page of their own, reached from the profile page, with none yet', async () => {
    // The list of links holds no keys, however long it is: a button leads to them.
    expect(await section().count()).toBe(0);
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.waitForURL(`${stack.url}/settings`);
    await visible(page.getByRole('heading', { level: 1, name: 'Settings' }));
    expect(await page.title()).toMatch(/^Settings · /);
    await visible(section().getByRole('heading', { level: 2, name: 'API keys' }));
    await visible(section().getByText('No API keys yet.'));
    // 'Create key' is disabled until the key has a name, and says so beside it (issue 37).
    const create = section().getByRole('button', { name: 'Create key' });
    expect(await create.isDisabled()).toBe(true);
    const why = await visible(section().getByText('Give the key a name.', { exact: true }));
    expect(await create.getAttribute('aria-describedby')).toBe(await why.getAttribute('id'));
    // links:write is chosen to begin with.
    expect(
      await section()
        .getByRole('checkbox', { name: /links:write/ })
        .isChecked(),
    ).toBe(true);
    expect(
      await section()
        .getByRole('checkbox', { name: /stats:read/ })
        .isChecked(),
    ).toBe(false);
    await picture('api-keys-empty');
  });

  it('makes a key, shows it whole once, and copies it', async () => {
    await section().getByLabel('Name').fill('Deploy script');
    await section()
      .getByRole('checkbox', { name: /links:read/ })
      .check();
    await section().getByRole('button', { name: 'Create key' }).click();
    const secret = section().locator('.api-keys__secret-text');
    await visible(secret);
    key = (await secret.textContent()) ?? '';
    expect(key).toMatch(KEY_PATTERN);
    await visible(
      section().getByText('Copy it now: it will not be shown again.', { exact: false }),
    );
    await section().getByRole('button', { name: 'Copy API key' }).click();
    await visible(section().getByRole('button', { name: 'Copy API key' }).getByText('Copied'));
    expect(await readClipboard(page)).toBe(key);
    // Listed beside it: the name, its public prefix, the scopes; created now, never used.
    const item = keyList().getByRole('listitem');
    expect(await item.count()).toBe(1);
    const text = (await item.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('Deploy script');
    expect(text).toContain(`${key.slice(0, 14)}…`);
    expect(text).toContain('links:write');
    expect(text).toContain('links:read');
    expect(text).toContain('Last used Never');
    await picture('api-keys-created');
  });

  it('works from a script, and is never shown again: the list after a reload has no secret', async () => {
    const query = new URLSearchParams({ url: `https://example.com/e2e-keys/${RUN}` });
    const shortened = await withKey(`/api/shorten/?${query.toString()}`, { method: 'POST' });
    expect(shortened.status).toBe(201);

    // The page itself, loaded anew (its own path, served with the signed-in frame).
    await page.reload();
    await visible(keyList());
    expect(await section().locator('.api-keys__secret-text').count()).toBe(0);
    expect(await page.content()).not.toContain(key.slice(15));
    const text = (await keyList().getByRole('listitem').innerText()).replace(/\s+/g, ' ');
    expect(text).not.toContain('Never');
    expect(text).toMatch(/Last used \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}/);
    await picture('api-keys-listed');
  });

  it('revokes the key once the user confirms: gone from the list, refused at once', async () => {
    await keyList().getByRole('button', { name: 'Revoke' }).click();
    // Nothing is revoked until asked a second time (issue 37).
    await visible(keyList().getByText('Revoke “Deploy script”?', { exact: false }));
    expect((await withKey('/api/links')).status).toBe(200);
    await picture('api-keys-revoke-confirm');
    await keyList().getByRole('button', { name: 'Revoke key' }).click();
    await visible(section().getByText('No API keys yet.'));
    const refused = await withKey('/api/user');
    expect(refused.status).toBe(401);
    expect(journal).toEqual([]);
    await picture('api-keys-revoked');
  });
});
