import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { type Browser, type Page } from 'playwright-core';
import { ALIAS_MESSAGES } from '@shortener/contracts';
import { startOAuth2Mock, type OAuth2Mock, type Stack } from '@shortener/testkit';
import {
  ARTIFACTS,
  DESKTOP,
  type LandingServer,
  launchChromium,
  screenshots,
  startJourneyStack,
  startLandingServer,
  visible,
} from './support/browser';

// Issue 28's alias field in Chromium against the whole stack from its builds: signed in, the
// home page offers an optional Alias under the URL, the short link it makes ends in the alias
// and redirects; a taken one is refused next to the form; signed out, there is no field.

const RUN = Date.now().toString(36);
const FULL_NAME = 'Alia Alias';

describe('the alias field of the shorten form', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let landing: LandingServer;
  let browser: Browser;
  let page: Page;
  const journal: string[] = [];

  const urlInput = () => page.getByLabel('URL to shorten');
  const aliasInput = () => page.getByRole('textbox', { name: 'Alias (optional)' });
  const shortenButton = () => page.getByRole('button', { name: 'Shorten', exact: true });

  beforeAll(async () => {
    landing = await startLandingServer();
    provider = await startOAuth2Mock({
      alia: { sub: `alias-${RUN}`, name: FULL_NAME, picture: '', email: 'alia@example.com' },
    });
    stack = await startJourneyStack(provider);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    context.setDefaultTimeout(15_000);
    context.setDefaultNavigationTimeout(20_000);
    context.on('weberror', (error) => journal.push(`page error: ${error.error().message}`));
    page = await context.newPage();
  }, 150_000);

  afterAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(
      path.join(ARTIFACTS, 'e2e-alias.log'),
      [...journal, '=== services', stack?.output() ?? ''].join('\n'),
    );
    await page?.context().close();
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
    await landing?.stop();
  });

  it('is not there signed out', async () => {
    await page.goto(`${stack.url}/`);
    await visible(page.getByRole('heading', { name: 'Shorten your URL' }));
    await visible(urlInput());
    expect(await aliasInput().count()).toBe(0);
    expect(await page.getByText('Alias', { exact: false }).count()).toBe(0);
  });

  it('signed in, makes a short link ending in the alias, which redirects', async () => {
    await page.goto(`${stack.url}/profile`);
    await page.getByRole('link', { name: 'Sign in with Google', exact: true }).click();
    await visible(page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 30_000);

    await page.goto(`${stack.url}/`);
    const alias = `Spring_Sale-${RUN}-${randomInt(1000)}`;
    const target = `${landing.origin}/landing?journey=alias&run=${RUN}`;
    await urlInput().fill(target);
    await aliasInput().fill(alias);
    await screenshots(page, 'alias-field');
    await shortenButton().click();
    await visible(page.getByRole('button', { name: 'Copy', exact: true }));
    expect(await urlInput().inputValue()).toBe(`${stack.url}/r/${alias}`);

    const redirect = await fetch(`${stack.url}/r/${alias}`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe(target);

    // The list shows it, and its detail page opens by the alias.
    await page.goto(`${stack.url}/profile/${alias}`);
    await visible(page.getByText(`/r/${alias}`, { exact: false }).first());
  });

  it('shows why a taken alias is refused next to the form, and shortens once it is changed', async () => {
    await page.goto(`${stack.url}/`);
    const alias = `taken-${RUN}`;
    await urlInput().fill(`${landing.origin}/landing?journey=alias-taken&run=${RUN}`);
    await aliasInput().fill(alias);
    await shortenButton().click();
    await visible(page.getByRole('button', { name: 'Copy', exact: true }));

    await urlInput().fill(`${landing.origin}/landing?journey=alias-taken-again&run=${RUN}`);
    await aliasInput().fill(alias.toUpperCase());
    await shortenButton().click();
    const alert = await visible(page.getByRole('alert'));
    expect(await alert.textContent()).toBe(ALIAS_MESSAGES.taken);
    await screenshots(page, 'alias-taken');

    await aliasInput().fill(`${alias}-2`);
    expect(await page.getByRole('alert').count()).toBe(0);
    await shortenButton().click();
    await visible(page.getByRole('button', { name: 'Copy', exact: true }));
    expect(await urlInput().inputValue()).toBe(`${stack.url}/r/${alias}-2`);
  });
});
