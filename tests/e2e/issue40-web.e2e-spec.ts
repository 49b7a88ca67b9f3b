import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { DOMAIN_MESSAGES } from '@shortener/contracts';
import {
  startDnsResponder,
  startOAuth2Mock,
  type DnsResponder,
  type OAuth2Mock,
  type Stack,
} from '@shortener/testkit';
import {
  ARTIFACTS,
  DESKTOP,
  holdNextRequest,
  launchChromium,
  readClipboard,
  screenshots,
  startJourneyStack,
  startLandingServer,
  visible,
  type LandingServer,
} from './support/browser';

// Issue 40's web app in Chromium against the whole stack from its builds: the settings
// page's Domains section (a domain added, its TXT record copied, verified against this
// test's own DNS server as the links service's DNS_SERVERS, removed and brought back with
// Undo), and the shorten form's UTM builder. Each state passes axe-core and is pictured at
// 1280 and 390 px (screenshots()).

const RUN = Date.now().toString(36);
const FULL_NAME = 'Dana Domains';
const HOST = `go-${RUN}.acme.example`;

describe("issue 40's web app", () => {
  let provider: OAuth2Mock;
  let dns: DnsResponder;
  let landing: LandingServer;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  const journal: string[] = [];

  const section = (): Locator => page.getByRole('region', { name: 'Domains' });
  const domainList = (): Locator => section().getByRole('list', { name: 'Your domains' });

  /** Pictured from the top, so the sticky top bar stays above the page, not over it. */
  async function picture(screen: string): Promise<void> {
    await page.evaluate(() => {
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0);
    });
    await screenshots(page, screen);
  }

  beforeAll(async () => {
    dns = await startDnsResponder();
    landing = await startLandingServer();
    provider = await startOAuth2Mock({
      dana: { sub: `domains-${RUN}`, name: FULL_NAME, picture: '', email: 'dana@example.com' },
    });
    // Given a minute to start: the stack's eight services on a busy machine.
    stack = await startJourneyStack(provider, {
      // The server's undo window outlasts the pictures taken while Undo is offered.
      serviceEnv: { links: { DNS_SERVERS: dns.server, DELETE_UNDO_WINDOW_MS: '120000' } },
      healthTimeoutMs: 60_000,
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
    context.setDefaultTimeout(15_000);
    context.on('weberror', (error) => journal.push(`page error: ${error.error().message}`));
    page = await context.newPage();
    await page.goto(`${stack.url}/profile`);
    await page.getByRole('link', { name: 'Sign in with Google', exact: true }).click();
    await visible(page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 30_000);
  }, 300_000);

  afterAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(
      path.join(ARTIFACTS, 'e2e-issue40-web.log'),
      [...journal, '=== services', stack?.output() ?? ''].join('\n'),
    );
    await page?.context().close();
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
    await landing?.stop();
    await dns?.stop();
  });

  describe('the Domains section of the settings page', () => {
    it('is there with none yet', async () => {
      await page.goto(`${stack.url}/settings`);
      await visible(section().getByRole('heading', { level: 2, name: 'Domains' }));
      await visible(section().getByText('No domains yet.'));
      await picture('domains-empty');
    });

    it('adds a domain and shows the TXT record to create, each part copied by its button', async () => {
      await section().getByLabel('Domain', { exact: true }).fill(HOST.toUpperCase());
      await section().getByRole('button', { name: 'Add domain' }).click();
      const item = await visible(domainList().getByRole('listitem'));
      await visible(item.getByText(HOST, { exact: true }));
      await visible(item.getByText('Not verified'));
      await visible(item.getByText(`_shortener-verify.${HOST}`, { exact: true }));
      const value = (await item.getByText(/^shortener-verify=/).textContent()) ?? '';
      expect(value).toMatch(/^shortener-verify=[\w-]{24}$/);

      await item.getByRole('button', { name: 'Copy record name' }).click();
      await visible(item.getByRole('button', { name: 'Copy record name' }).getByText('Copied'));
      expect(await readClipboard(page)).toBe(`_shortener-verify.${HOST}`);
      await item.getByRole('button', { name: 'Copy record value' }).click();
      expect(await readClipboard(page)).toBe(value);
      await picture('domains-added');
    });

    it('says what is missing when the record is not there, with progress meanwhile', async () => {
      const item = domainList().getByRole('listitem');
      const value = (await item.getByText(/^shortener-verify=/).textContent()) ?? '';
      const held = await holdNextRequest(page, /\/api\/domains\/[^/]+\/verify$/);
      await item.getByRole('button', { name: 'Verify' }).click();
      await held.arrived;
      await visible(item.getByRole('button', { name: 'Verifying..' }));
      await visible(item.getByText(`Looking up the TXT record of ${HOST}…`));
      held.release();
      const alert = await visible(item.getByRole('alert'));
      expect(await alert.textContent()).toBe(
        DOMAIN_MESSAGES.recordMissing(`_shortener-verify.${HOST}`, value),
      );
      await picture('domains-verify-refused');
    });

    it('verifies once the record holds the value', async () => {
      const item = domainList().getByRole('listitem');
      const value = (await item.getByText(/^shortener-verify=/).textContent()) ?? '';
      dns.setTxt(`_shortener-verify.${HOST}`, [value]);
      await item.getByRole('button', { name: 'Verify' }).click();
      await visible(item.getByText('Verified', { exact: true }));
      expect(await item.getByRole('button', { name: 'Verify' }).count()).toBe(0);
      expect(await item.getByRole('alert').count()).toBe(0);
      // As the server keeps it: verified after a reload too.
      await page.reload();
      await visible(domainList().getByRole('listitem').getByText('Verified', { exact: true }));
      await picture('domains-verified');
    });

    it('removes the domain at once, and Undo brings it back verified', async () => {
      await domainList().getByRole('button', { name: 'Remove' }).click();
      await visible(section().getByText('No domains yet.'));
      const notice = page.getByRole('status').filter({ hasText: 'Domain removed.' });
      await visible(notice);
      // Held while pictured (the pointer or the focus on it keeps it).
      await notice.getByRole('button', { name: 'Undo' }).focus();
      await picture('domains-removed');
      await notice.getByRole('button', { name: 'Undo' }).click();
      const item = await visible(domainList().getByRole('listitem'));
      await visible(item.getByText('Verified', { exact: true }));
      const listed = await page.evaluate(async () => {
        const answer = await fetch('/api/domains', {
          headers: { 'X-Requested-With': 'XMLHttpRequest' },
        });
        return (await answer.json()) as { host: string; verified: boolean }[];
      });
      expect(listed.map(({ host, verified }) => ({ host, verified }))).toEqual([
        { host: HOST, verified: true },
      ]);
      expect(journal).toEqual([]);
    });
  });

  describe("the link form's domain and rules, shown on the link's page and edited there", () => {
    const slug = `spring-${RUN}`;
    const shortUrl = `https://${HOST}/${slug}`;
    const rules = (): Locator => page.getByRole('region', { name: 'Domain and rules' });

    it('makes a link on the verified domain with targeting, a password and a cap', async () => {
      await page.goto(`${stack.url}/`);
      await page.getByLabel('URL to shorten').fill(`${landing.origin}/landing?journey=rules`);
      await page.getByRole('textbox', { name: 'Alias (optional)' }).fill(slug);
      await page.getByRole('button', { name: 'Domain and rules' }).click();
      const domain = page.getByRole('combobox', { name: 'Domain' });
      // Once the verified domains have loaded (selectOption waits for the option).
      await domain.selectOption(HOST);
      await page.getByLabel('iPhone and iPad visitors go to').fill('https://apps.apple.com/app/1');
      await page.getByRole('button', { name: 'Add a country' }).click();
      await page.getByLabel('Country 1', { exact: true }).fill('gb');
      await page.getByLabel('Visitors from country 1 go to').fill('https://example.co.uk/');
      await page.getByLabel('Password', { exact: true }).fill('open sesame');
      await page.getByLabel('Visit cap').fill('100');
      await picture('link-options');

      await page.getByRole('button', { name: 'Shorten', exact: true }).click();
      await visible(page.getByRole('button', { name: 'Copy', exact: true }));
      expect(await page.getByLabel('URL to shorten').inputValue()).toBe(shortUrl);
    });

    it("shows the link's own short URL and its rules on its page", async () => {
      await page.getByRole('link', { name: 'Its stats and visitors' }).click();
      await visible(rules());
      expect(await page.locator('.detail__short-link').textContent()).toBe(shortUrl);
      const text = (await rules().innerText()).replace(/\s+/g, ' ');
      expect(text).toContain(`Domain ${HOST}`);
      expect(text).toContain('iPhone and iPad visitors https://apps.apple.com/app/1');
      expect(text).toContain('(GB) https://example.co.uk/');
      expect(text).toContain('Password Asked before the visit');
      expect(text).toContain('Visit cap 100 visits, then it stops');
      await picture('link-rules');
    });

    it('edits them: the password removed, the cap changed', async () => {
      await page.getByRole('button', { name: 'Edit' }).click();
      const form = page.getByRole('form', { name: 'Edit link' });
      expect(await form.getByLabel('iPhone and iPad visitors go to').inputValue()).toBe(
        'https://apps.apple.com/app/1',
      );
      await form.getByRole('checkbox', { name: 'Remove the password' }).check();
      await form.getByLabel('Visit cap').fill('50');
      await picture('link-edit-rules');
      await form.getByRole('button', { name: 'Save' }).click();
      await visible(page.getByText('Saved.'));
      await visible(rules().getByText('50 visits, then it stops'));
      expect(await rules().getByText('Asked before the visit').count()).toBe(0);
      expect(journal).toEqual([]);
    });
  });

  describe('the UTM builder beside the URL field', () => {
    const urlInput = (): Locator => page.getByLabel('URL to shorten');
    const field = (name: string): Locator => page.getByRole('textbox', { name });

    it('writes the campaign parameters into the URL and reads them from it', async () => {
      await page.goto(`${stack.url}/`);
      const target = `${landing.origin}/landing?journey=utm`;
      await urlInput().fill(target);
      await page.getByRole('button', { name: 'UTM parameters' }).click();
      await field('Source utm_source').fill('newsletter');
      await field('Medium utm_medium').fill('e mail');
      await field('Campaign utm_campaign').fill('spring');
      const tagged = `${target}&utm_source=newsletter&utm_medium=e%20mail&utm_campaign=spring`;
      expect(await urlInput().inputValue()).toBe(tagged);
      await picture('utm-builder');

      // Edited in the URL, the field follows.
      await urlInput().fill(tagged.replace('utm_campaign=spring', 'utm_campaign=autumn'));
      expect(await field('Campaign utm_campaign').inputValue()).toBe('autumn');
      await field('Medium utm_medium').fill('');
      const shortened = `${target}&utm_source=newsletter&utm_campaign=autumn`;
      expect(await urlInput().inputValue()).toBe(shortened);
    });

    it('shortens the URL with its parameters', async () => {
      await page.getByRole('button', { name: 'Shorten', exact: true }).click();
      await visible(page.getByRole('button', { name: 'Copy', exact: true }));
      const shortLink = await urlInput().inputValue();
      const redirect = await fetch(shortLink, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe(
        `${landing.origin}/landing?journey=utm&utm_source=newsletter&utm_campaign=autumn`,
      );
      expect(journal).toEqual([]);
    });
  });
});
