import { type Browser, type Page } from 'playwright-core';
import { startOAuth2Mock, startStack, type OAuth2Mock, type Stack } from '@shortener/testkit';
import {
  DESKTOP,
  PHONE,
  launchChromium,
  screenshots,
  startJourneyStack,
  visible,
} from './support/browser';

// Issue 37, items 9, 10, 13 and 15, as a new user meets them in Chromium against the whole
// stack: the top bar signed out, the home page's bare domain, result, errors and rate limit,
// a profile page without the server, a link's page (its chunk, stats and visitor log without
// the server, the referrer, Save and Escape), the privacy policy. Each screen passes axe-core and is
// pictured at 1280 and 390 px (artifacts/screenshots/issue37-*).

const RUN = Date.now().toString(36);

/** The browser globals read in the page (the tests are typechecked without the DOM library). */
interface Globals {
  document: { activeElement: unknown };
  localStorage: { removeItem(key: string): void };
  getComputedStyle(element: unknown): { overflowWrap: string };
}
const FULL_NAME = 'Nia Ninethirtyseven';

describe('issue 37: the web app at 1280 and 390 px', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let browser: Browser;
  let anonymous: Page;
  let signedIn: Page;

  const urlInput = (page: Page) => page.getByRole('textbox', { name: 'URL to shorten' });

  beforeAll(async () => {
    provider = await startOAuth2Mock({
      nia: { sub: `issue37-${RUN}`, name: FULL_NAME, picture: '', email: 'nia@example.com' },
    });
    stack = await startJourneyStack(provider);
    browser = await launchChromium();
    anonymous = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    signedIn = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    for (const page of [anonymous, signedIn]) page.context().setDefaultTimeout(15_000);
    await signedIn.goto(`${stack.url}/profile`);
    await signedIn.getByRole('link', { name: 'Sign in with Google', exact: true }).click();
    await visible(signedIn.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 30_000);
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
  });

  it("keeps SPEC's profile icon signed out, with 'Sign in' beside it, both whole at both widths (item 9)", async () => {
    await anonymous.goto(`${stack.url}/`);
    const bar = anonymous.getByRole('banner');
    const profile = bar.getByRole('link', { name: 'Profile', exact: true });
    const signIn = bar.getByRole('link', { name: 'Sign in', exact: true });
    expect(await profile.getAttribute('href')).toBe('/profile');
    expect(await profile.locator('svg').count()).toBe(1);
    expect(await signIn.getAttribute('href')).toBe('/login?from=%2F');
    for (const size of [DESKTOP, PHONE]) {
      await anonymous.setViewportSize(size);
      for (const link of [signIn, profile]) {
        const box = await link.boundingBox();
        expect({
          width: size.width,
          whole: box !== null && box.x + box.width <= size.width,
        }).toEqual({ width: size.width, whole: true });
      }
    }
    await screenshots(anonymous, 'issue37-top-bar-signed-out');
  });

  it('shortens a bare domain as https and shows where it leads; anonymous, no page link (item 10)', async () => {
    await anonymous.goto(`${stack.url}/`);
    await urlInput(anonymous).fill(`example.com/issue37/${RUN}`);
    await anonymous.getByRole('button', { name: 'Shorten', exact: true }).click();
    await visible(anonymous.getByRole('button', { name: 'Copy', exact: true }));
    const result = anonymous.getByRole('region', { name: 'Your short link' });
    expect(await result.textContent()).toContain(`https://example.com/issue37/${RUN}`);
    expect(await result.getByRole('link').count()).toBe(0);
    await screenshots(anonymous, 'issue37-home-result-anonymous');
  });

  it("still says '* Please enter a valid URL' for foo and javascript:", async () => {
    for (const text of ['foo', 'javascript:alert(1)']) {
      await anonymous.goto(`${stack.url}/`);
      await urlInput(anonymous).fill(text);
      await anonymous.getByRole('button', { name: 'Shorten', exact: true }).click();
      await visible(anonymous.getByText('* Please enter a valid URL', { exact: true }));
    }
  });

  it("signed in: the lead does not ask to sign in, the result links the new link's page, a new expiry clears it (item 10)", async () => {
    await signedIn.goto(`${stack.url}/`);
    const lead = await visible(signedIn.getByText(/^Paste a long link/));
    expect(await lead.textContent()).not.toMatch(/sign in/i);
    await urlInput(signedIn).fill(`example.com/signed-in/${RUN}`);
    await signedIn.getByRole('button', { name: '30 days', exact: true }).click();
    await signedIn.getByRole('button', { name: 'Shorten', exact: true }).click();
    await visible(signedIn.getByRole('button', { name: 'Copy', exact: true }));
    const page = signedIn.getByRole('link', { name: 'Its stats and visitors', exact: true });
    const code = (await urlInput(signedIn).inputValue()).split('/r/')[1] ?? '';
    expect(await page.getAttribute('href')).toBe(`/profile/${code}`);
    await screenshots(signedIn, 'issue37-home-result-signed-in');

    await signedIn.getByRole('button', { name: '60 days', exact: true }).click();
    await visible(signedIn.getByRole('button', { name: 'Shorten', exact: true }));
    expect(await signedIn.getByRole('region', { name: 'Your short link' }).count()).toBe(0);
  });

  it('puts an alias refusal under the alias field at 390 px (item 13)', async () => {
    await signedIn.setViewportSize(PHONE);
    await signedIn.goto(`${stack.url}/`);
    await urlInput(signedIn).fill('https://example.com/alias');
    const alias = signedIn.getByRole('textbox', { name: 'Alias (optional)' });
    await alias.fill('profile');
    await signedIn.getByRole('button', { name: 'Shorten', exact: true }).click();
    const alert = await visible(signedIn.getByRole('alert'));
    const [field, message, button] = await Promise.all([
      alias.boundingBox(),
      alert.boundingBox(),
      signedIn.getByRole('button', { name: 'Shorten', exact: true }).boundingBox(),
    ]);
    expect(message!.y).toBeGreaterThan(field!.y + field!.height - 1);
    expect(message!.y).toBeGreaterThan(button!.y);
    await signedIn.setViewportSize(DESKTOP);
    await screenshots(signedIn, 'issue37-home-alias-refused');
  });

  it("says 'Cannot reach the server' with Retry when no answer comes, and shortens on Retry once back (item 13)", async () => {
    await anonymous.goto(`${stack.url}/`);
    // The network, not the server, fails: the request never gets an answer.
    await anonymous.route('**/api/shorten/**', (route) => route.abort('connectionrefused'));
    await urlInput(anonymous).fill(`https://example.com/unreachable/${RUN}`);
    await anonymous.getByRole('button', { name: 'Shorten', exact: true }).click();
    await visible(anonymous.getByText(/^Cannot reach the server/));
    expect(await urlInput(anonymous).getAttribute('aria-invalid')).toBe('false');
    await screenshots(anonymous, 'issue37-home-unreachable');
    await anonymous.unroute('**/api/shorten/**');
    await anonymous.getByRole('button', { name: 'Retry', exact: true }).click();
    await visible(anonymous.getByRole('button', { name: 'Copy', exact: true }));
  });

  it('shows the rate limit as a form message counting down, not a red URL field (item 13)', async () => {
    // A stack of its own whose anonymous budget is small enough to spend: the journeys' is
    // set out of reach.
    const limited = await startStack({
      env: { SHORTEN_RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_WINDOW_SECONDS: '60' },
    });
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    try {
      await page.goto(`${limited.url}/`);
      const timer = page.getByRole('timer');
      for (let attempt = 0; attempt < 5 && (await timer.count()) === 0; attempt++) {
        await urlInput(page).fill(`https://example.com/limit/${RUN}/${String(attempt)}`);
        await page.getByRole('button', { name: 'Shorten', exact: true }).click();
        await Promise.race([
          page.getByRole('button', { name: 'Copy', exact: true }).waitFor(),
          timer.waitFor(),
        ]);
      }
      const first = await (await visible(timer)).textContent();
      expect(first).toMatch(/^You can try again in \d+ s\.$/);
      await visible(page.getByText(/^Too many links shortened/));
      expect(await urlInput(page).getAttribute('aria-invalid')).toBe('false');
      await page.waitForTimeout(1_500);
      expect(await timer.textContent()).not.toBe(first);
      await screenshots(page, 'issue37-home-rate-limited');
    } finally {
      await context.close();
      await limited.stop();
    }
  }, 180_000);

  it("says 'Cannot reach the server' on the list without the server, and shows the list by itself once back (item 13)", async () => {
    await signedIn.evaluate(() => {
      (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear();
    });
    await signedIn.route('**/api/user', (route) => route.abort('connectionrefused'));
    await signedIn.goto(`${stack.url}/profile`);
    await visible(signedIn.getByText(/^Cannot reach the server/));
    await screenshots(signedIn, 'issue37-profile-unreachable');
    await signedIn.unroute('**/api/user');
    await visible(signedIn.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 15_000);
  });

  describe("a link's page (item 13)", () => {
    let code = '';
    const stats = () => signedIn.getByRole('region', { name: 'Stats' });
    const log = () => signedIn.getByRole('region', { name: 'Visitor log' });
    const editButton = () => signedIn.getByRole('button', { name: 'Edit', exact: true });

    it("says 'Cannot reach the server' when its page cannot be fetched, and shows it by itself once it can", async () => {
      await signedIn.goto(`${stack.url}/`);
      await urlInput(signedIn).fill(`https://example.com/detail/${RUN}`);
      await signedIn.getByRole('button', { name: '30 days', exact: true }).click();
      await signedIn.getByRole('button', { name: 'Shorten', exact: true }).click();
      const pageLink = await visible(
        signedIn.getByRole('link', { name: 'Its stats and visitors', exact: true }),
      );
      code = (await urlInput(signedIn).inputValue()).split('/r/')[1] ?? '';
      // The page's chunk and its stylesheet do not come: no network, or the server down.
      const chunk = /\/assets\/link-detail-[\w-]+\.(js|css)$/;
      await signedIn.route(chunk, (route) => route.abort('connectionrefused'));
      try {
        await pageLink.click();
        await visible(signedIn.getByText(/^Cannot reach the server/));
        expect(await signedIn.getByText('Something went wrong.').count()).toBe(0);
        await screenshots(signedIn, 'issue37-detail-page-unreachable');
      } finally {
        await signedIn.unroute(chunk);
      }
      const heading = signedIn.getByRole('heading', { level: 1, name: /example\.com\/detail/ });
      await visible(heading, 15_000);
      expect(await signedIn.getByText(/^Cannot reach the server/).count()).toBe(0);
      // Styled: its stylesheet was asked for again too.
      expect(
        await heading.evaluate(
          (element) => (globalThis as unknown as Globals).getComputedStyle(element).overflowWrap,
        ),
      ).toBe('anywhere');
    }, 60_000);

    it('shows where a visitor came from in the visitor log', async () => {
      const visit = await fetch(`${stack.url}/r/${code}`, {
        redirect: 'manual',
        headers: { referer: 'https://news.example.org/story?id=37' },
      });
      expect(visit.status).toBe(302);
      await signedIn.goto(`${stack.url}/profile/${code}`);
      const row = log().getByRole('listitem').first();
      for (let attempt = 0; attempt < 30 && (await row.count()) === 0; attempt++) {
        await signedIn.waitForTimeout(500);
        await log().getByRole('button', { name: 'Refresh' }).first().click();
      }
      expect(await (await visible(row)).textContent()).toContain('news.example.org');
      await screenshots(signedIn, 'issue37-detail-referrer');
    }, 60_000);

    it("says 'Cannot reach the server' in the stats and the visitor log, and fills them by itself once back", async () => {
      const api = /\/api\/(stats|visitors)\//;
      await signedIn.route(api, (route) => route.abort('connectionrefused'));
      try {
        await signedIn.evaluate((key) => {
          (globalThis as unknown as Globals).localStorage.removeItem(key);
        }, `visitors-${code}`);
        await signedIn.reload();
        await visible(stats().getByText(/Cannot reach the server/));
        await visible(log().getByText(/^Cannot reach the server/));
        await visible(log().getByRole('button', { name: 'Retry', exact: true }));
        expect(await stats().getByRole('term').count()).toBe(0);
        await screenshots(signedIn, 'issue37-detail-sections-unreachable');
      } finally {
        await signedIn.unroute(api);
      }
      // Each section asks again on its own timer (every 5 s): wait for both. The Range group
      // is no sign the stats came back: a link with visits shows it beside the error too.
      await visible(log().getByRole('listitem').first(), 15_000);
      await visible(
        stats()
          .getByRole('term')
          .filter({ hasText: /^Visits$/ }),
        15_000,
      );
      await stats()
        .getByText(/Cannot reach the server/)
        .waitFor({ state: 'detached', timeout: 15_000 });
      expect(await signedIn.getByText(/Cannot reach the server/).count()).toBe(0);
    }, 60_000);

    it("says 'Saved.' after Save, and Escape closes the edit form without saving", async () => {
      await signedIn.goto(`${stack.url}/profile/${code}`);
      await editButton().click();
      const destination = signedIn.getByRole('textbox', { name: 'Destination' });
      await destination.fill(`https://example.com/edited/${RUN}`);
      await signedIn.getByRole('button', { name: 'Save', exact: true }).click();
      await visible(signedIn.getByRole('status').filter({ hasText: 'Saved.' }));
      expect(
        await editButton().evaluate(
          (button) => button === (globalThis as unknown as Globals).document.activeElement,
        ),
      ).toBe(true);
      await screenshots(signedIn, 'issue37-detail-saved');

      await editButton().click();
      await destination.fill('https://example.com/not-saved');
      await signedIn.keyboard.press('Escape');
      expect(await signedIn.getByRole('form', { name: 'Edit link' }).count()).toBe(0);
      expect(
        await editButton().evaluate(
          (button) => button === (globalThis as unknown as Globals).document.activeElement,
        ),
      ).toBe(true);
      await visible(signedIn.getByRole('heading', { level: 1, name: /example\.com\/edited/ }));
    });
  });

  it('says on the privacy page what the app does (item 15)', async () => {
    await anonymous.goto(`${stack.url}/privacy_policy`);
    const text = (await visible(anonymous.getByRole('article'))).textContent();
    for (const fact of [
      'offers Undo for 5 seconds',
      'is not given to another link for 90 days',
      'country, looked up from the IP address',
      'only a hash of the key is stored',
    ]) {
      expect((await text)?.replace(/\s+/g, ' ')).toContain(fact);
    }
    await screenshots(anonymous, 'issue37-privacy');
  });
});
