import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
  type Response,
} from 'playwright-core';
import { VISITS_PAGE_DEFAULT } from '@shortener/contracts';
import { startOAuth2Mock, type MockUser, type OAuth2Mock, type Stack } from '@shortener/testkit';
import {
  ARTIFACTS,
  definition,
  DESKTOP,
  eventually,
  holdNextRequest,
  keyboardTo,
  type LandingServer,
  launchChromium,
  localStorageOf,
  type PageGlobals,
  readClipboard,
  screenshots,
  SCREENSHOT_DIR,
  startJourneyStack,
  startLandingServer,
  visible,
} from './support/browser';

// The user journeys of SPEC.md in a real browser (Debian's Chromium through playwright-core)
// against the whole distributed stack from its builds: gateway serving the built frontend,
// auth, links, redirect and analytics on the real PostgreSQL, Redis and Kafka, with a local
// OAuth2 provider standing in for Google. Every string below is quoted from SPEC.md.

const SPEC = {
  homeHeading: 'Shorten your URL',
  shorten: 'Shorten',
  loading: 'Loading..',
  copy: 'Copy',
  copied: 'Copied',
  expiryHint: 'Login required to set expiry beyond 7 days.',
  invalidUrl: '* Please enter a valid URL',
  noUrls: 'No urls to display',
  shortenAUrl: 'Shorten a URL',
  noVisitors: 'No visitors found',
  urlNotFound: 'Url not found',
  mustLogin: 'You must login first',
  signIn: 'Sign in with Google',
  profileLoading: 'Loading....',
  pageNotFound: 'Page not found.',
  serverError: 'Server error',
  loadMore: 'Load more',
} as const;

const RUN = Date.now().toString(36);
// A new Google account every run: its list starts empty whatever earlier runs left behind.
const USER: MockUser = {
  sub: `e2e-${RUN}`,
  name: 'Erin Example',
  // Served by the browser context itself (no internet); the page's CSP allows https images.
  picture: `https://pictures.example.test/erin-${RUN}.svg`,
  email: 'erin@example.com',
};
const AVATAR_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#0e7490"/><text x="32" y="42" font-size="28" text-anchor="middle" fill="#fff">E</text></svg>';

const DATE_TIME = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2})$/;
const DAY_S = 24 * 60 * 60;

/** 'dd/mm/yyyy hh:mm:ss' in local time (the browser and Jest share the machine's zone). */
function parseDateTime(text: string): number {
  const match = DATE_TIME.exec(text.trim());
  if (!match) throw new Error(`not dd/mm/yyyy hh:mm:ss: ${JSON.stringify(text)}`);
  const [day, month, year, hours, minutes, seconds] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return new Date(year, month - 1, day, hours, minutes, seconds).getTime();
}

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

interface ApiCall {
  method: string;
  /** Path and query, as the page sent them. */
  path: string;
  requestedWith: string | undefined;
}

describe('browser journeys', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let landing: LandingServer;
  let browser: Browser;
  /** Every /api call any page made, to check the calls of SPEC section 7 at the end. */
  const apiCalls: ApiCall[] = [];
  /** Every request that reached the OAuth2 provider: sign-in really went through it. */
  const providerRequests: string[] = [];
  /** Navigations and page errors of every journey, written to artifacts/ with the services' logs. */
  const journal: string[] = [];
  /** The codes of the signed-in user's 7-day and 30-day links, once shortened. */
  let code7 = '';
  let code30 = '';

  const target = (journey: string): string =>
    `${landing.origin}/landing?journey=${journey}&run=${RUN}`;
  const shortLinkPattern = (): RegExp =>
    new RegExp(`^${stack.url.replace(/[.]/g, '\\.')}/r/([0-9A-Za-z]+)$`);

  /** A fresh browser profile (no cookies, no storage) on a desktop-sized window. */
  async function newJourneyPage(): Promise<Page> {
    const context: BrowserContext = await browser.newContext({ viewport: DESKTOP });
    // Bounded, yet with room for a 2-core machine that is busy with other suites too.
    context.setDefaultTimeout(15_000);
    context.setDefaultNavigationTimeout(20_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
    await context.route(USER.picture, (route) =>
      route.fulfill({ status: 200, contentType: 'image/svg+xml', body: AVATAR_SVG }),
    );
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === stack.url && url.pathname.startsWith('/api/')) {
        apiCalls.push({
          method: request.method(),
          path: `${url.pathname}${url.search}`,
          requestedWith: request.headers()['x-requested-with'],
        });
      }
      if (request.url().startsWith(provider.issuer)) providerRequests.push(request.url());
    });
    // What happened, for the log written at the end: a failed journey is diagnosed from it.
    context.on('response', (response) => {
      if (response.request().isNavigationRequest()) {
        journal.push(`navigation ${response.status()} ${response.url()}`);
      }
    });
    context.on('console', (message) => {
      if (message.type() === 'error') journal.push(`console error: ${message.text()}`);
    });
    context.on('weberror', (error) => journal.push(`page error: ${error.error().message}`));
    return context.newPage();
  }

  /** The main button of the shorten form, whichever of its labels it shows. */
  const mainButton = (page: Page, label: string): Locator =>
    page.getByRole('button', { name: label, exact: true });
  const urlInput = (page: Page): Locator => page.getByLabel('URL to shorten');

  /** Shortens `url` with the expiry chosen, waits for the result; the short link shown. */
  async function shorten(page: Page, url: string): Promise<string> {
    await urlInput(page).fill(url);
    await mainButton(page, SPEC.shorten).click();
    await visible(mainButton(page, SPEC.copy));
    const shortLink = await urlInput(page).inputValue();
    expect(shortLink).toMatch(shortLinkPattern());
    return shortLink;
  }

  const codeOf = (shortLink: string): string => shortLink.slice(`${stack.url}/r/`.length);

  /**
   * Opens `/` with the page's script held back, so that what the HTML alone paints can be
   * checked; `run()` lets the script come, waits until the app has taken the page over (the
   * host, which only the browser knows, is the placeholder then) and answers whether the
   * prerendered input is still the one on the page, and what the console said meanwhile.
   */
  async function openHomeWithScriptHeld(page: Page) {
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    // The module script index.html loads (its other scripts come from that one).
    const held = await holdNextRequest(page, /\/assets\/index-[\w-]+\.js$/);
    // A module script delays DOMContentLoaded: only the answer's arrival is waited for.
    await page.goto(`${stack.url}/`, { waitUntil: 'commit' });
    await held.arrived;
    await visible(page.getByRole('heading', { level: 1, name: SPEC.homeHeading }));
    // A mark on the element itself, not an attribute: gone if the app painted a new one.
    await urlInput(page).evaluate((input) => {
      Object.assign(input, { prerendered: true });
    });
    return {
      async run() {
        held.release();
        await eventually(async () =>
          expect(await urlInput(page).getAttribute('placeholder')).toBe(new URL(stack.url).host),
        );
        const kept = await urlInput(page).evaluate(
          (input) => (input as { prerendered?: boolean }).prerendered === true,
        );
        return { kept, errors };
      },
    };
  }

  beforeAll(async () => {
    landing = await startLandingServer();
    provider = await startOAuth2Mock({ erin: USER });
    stack = await startJourneyStack(provider);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(
      path.join(ARTIFACTS, 'e2e-journeys.log'),
      [
        '=== browser',
        ...journal,
        '=== OAuth2 mock',
        provider?.output() ?? '',
        '=== services',
        stack?.output() ?? '',
      ].join('\n'),
    );
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
    await landing?.stop();
  });

  describe('anonymous visitor on the home page', () => {
    let page: Page;
    let shortLink = '';
    const anonymousTarget = (): string => target('anonymous');

    beforeAll(async () => {
      page = await newJourneyPage();
      await page.goto(`${stack.url}/`);
    });
    afterAll(() => page?.context().close());

    it("shows 'Shorten your URL', the host as placeholder, 7 days chosen, and longer expiries disabled with the hint", async () => {
      await visible(page.getByRole('heading', { level: 1, name: SPEC.homeHeading }));
      // The heading is prerendered; the host placeholder comes once the app has hydrated.
      await eventually(async () =>
        expect(await urlInput(page).getAttribute('placeholder')).toBe(new URL(stack.url).host),
      );
      await visible(mainButton(page, SPEC.shorten));

      const seven = page.getByRole('button', { name: '7 days', exact: true });
      expect(await seven.getAttribute('aria-pressed')).toBe('true');
      expect(await seven.isDisabled()).toBe(false);
      for (const days of [15, 30, 60]) {
        const option = page.getByRole('button', { name: `${days} days`, exact: true });
        expect(await option.isDisabled()).toBe(true);
      }
      await visible(page.getByText(SPEC.expiryHint, { exact: true }));

      await screenshots(page, 'home-empty');
    });

    it("refuses an invalid URL with '* Please enter a valid URL' without calling the server, and editing clears it", async () => {
      const callsBefore = apiCalls.length;
      await urlInput(page).fill('not a url');
      await mainButton(page, SPEC.shorten).click();
      await visible(page.getByText(SPEC.invalidUrl, { exact: true }));
      expect(apiCalls.slice(callsBefore)).toEqual([]);
      await screenshots(page, 'home-invalid-url');

      await urlInput(page).fill('not a url either');
      await eventually(async () =>
        expect(await page.getByText(SPEC.invalidUrl, { exact: true }).count()).toBe(0),
      );
    });

    it("shortens: 'Loading..' while busy, then the input shows the short link and the button reads 'Copy', then 'Copied' with the link on the clipboard", async () => {
      await urlInput(page).fill(anonymousTarget());
      // The answer is held back so that the busy state is seen for certain.
      const held = await holdNextRequest(page, /\/api\/shorten\//);
      await mainButton(page, SPEC.shorten).click();
      await held.arrived;
      await visible(mainButton(page, SPEC.loading));
      await screenshots(page, 'home-loading');
      held.release();

      await visible(mainButton(page, SPEC.copy));
      shortLink = await urlInput(page).inputValue();
      expect(shortLink).toMatch(shortLinkPattern());
      await screenshots(page, 'home-result');

      await mainButton(page, SPEC.copy).click();
      await visible(mainButton(page, SPEC.copied));
      expect(await readClipboard(page)).toBe(shortLink);
      await screenshots(page, 'home-copied');
    });

    it("shows 'Server error' when the server fails to shorten", async () => {
      // The server itself would have to break for this: the answer is made up in the browser.
      await page.route(
        /\/api\/shorten\//,
        (route) =>
          route.fulfill({
            status: 500,
            contentType: 'application/json',
            body: JSON.stringify({ statusCode: 500, message: 'Internal server error' }),
          }),
        { times: 1 },
      );
      await urlInput(page).fill(`${anonymousTarget()}&failing=1`);
      await mainButton(page, SPEC.shorten).click();
      await visible(page.getByText(SPEC.serverError, { exact: true }));
      await visible(mainButton(page, SPEC.shorten));
      await screenshots(page, 'home-server-error');
    });

    it("goes back to 'Shorten' when the input is edited after a result", async () => {
      await urlInput(page).fill(`${anonymousTarget()}&edited=1`);
      await visible(mainButton(page, SPEC.shorten));
      expect(await mainButton(page, SPEC.copied).count()).toBe(0);
    });

    it('redirects the short link to the original page', async () => {
      expect(shortLink).not.toBe('');
      const response = await page.goto(shortLink);
      expect(page.url()).toBe(anonymousTarget());
      expect(await page.title()).toBe(landing.title);
      expect(response?.request().redirectedFrom()?.url()).toBe(shortLink);
    });
  });

  describe('the home page before its script arrives', () => {
    it('is painted from the HTML alone: top bar, the form with its expiry choices, footer (JavaScript off)', async () => {
      const context = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false });
      try {
        const page = await context.newPage();
        const response = await page.goto(`${stack.url}/`);
        expect(response?.status()).toBe(200);
        const html = (await response?.text()) ?? '';
        expect(html).toContain('<div id="root" data-shell="signed-out">');

        const main = page.getByRole('navigation', { name: 'Main' });
        await visible(page.getByRole('link', { name: 'URL Shortener', exact: true }));
        await visible(main.getByRole('link', { name: 'Tracking', exact: true }));
        expect(
          await main.getByRole('link', { name: 'Sign in', exact: true }).getAttribute('href'),
        ).toBe('/login?from=%2F');
        await visible(page.getByRole('heading', { level: 1, name: SPEC.homeHeading }));
        await visible(urlInput(page));
        await visible(mainButton(page, SPEC.shorten));
        const seven = page.getByRole('button', { name: '7 days', exact: true });
        expect(await seven.getAttribute('aria-pressed')).toBe('true');
        for (const days of [15, 30, 60]) {
          const option = page.getByRole('button', { name: `${days} days`, exact: true });
          expect(await option.isDisabled()).toBe(true);
        }
        await visible(page.getByText(SPEC.expiryHint, { exact: true }));
        const footer = page.getByRole('navigation', { name: 'Footer' });
        await visible(footer.getByRole('link', { name: /Source code/ }));
        await visible(footer.getByRole('link', { name: 'Terms and conditions', exact: true }));
        await visible(footer.getByRole('link', { name: 'Privacy policy', exact: true }));
        // A picture only: axe-core, which screenshots() runs, needs the page's JavaScript.
        await mkdir(SCREENSHOT_DIR, { recursive: true });
        await page.screenshot({
          path: path.join(SCREENSHOT_DIR, 'home-without-javascript-1280.png'),
          fullPage: true,
        });
      } finally {
        await context.close();
      }
    });

    it('is taken over by the app as it is, without a hydration error, and then shortens', async () => {
      const page = await newJourneyPage();
      try {
        const home = await openHomeWithScriptHeld(page);
        await visible(page.getByRole('link', { name: 'Sign in', exact: true }));
        const { kept, errors } = await home.run();
        expect(kept).toBe(true);
        expect(errors).toEqual([]);
        await shorten(page, target('after-hydration'));
        expect(errors).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  });

  describe('signed-out visitor', () => {
    let page: Page;

    beforeAll(async () => {
      page = await newJourneyPage();
    });
    afterAll(() => page?.context().close());

    it.each(['/profile', `/profile/unknown${RUN}`])(
      "asks to sign in on %s: 'You must login first' and 'Sign in with Google' linking /login?from={path}",
      async (path) => {
        await page.goto(`${stack.url}${path}`);
        await visible(page.getByRole('heading', { level: 1, name: SPEC.mustLogin }));
        const href = await page
          .getByRole('link', { name: SPEC.signIn, exact: true })
          .getAttribute('href');
        const signIn = new URL(href ?? '', stack.url);
        expect(signIn.origin).toBe(stack.url);
        expect(signIn.pathname).toBe('/login');
        expect([...signIn.searchParams]).toEqual([['from', path]]);
        if (path === '/profile') await screenshots(page, 'signed-out');
      },
    );

    it("shows the top bar: the title links to '/', 'Tracking' to '/profile', the profile link's generic icon to '/profile' and 'Sign in' beside it (issues 28, 37)", async () => {
      await page.goto(`${stack.url}/`);
      const title = page.getByRole('banner').getByRole('link', { name: 'URL Shortener' });
      expect(await title.getAttribute('href')).toBe('/');
      const tracking = page.getByRole('link', { name: 'Tracking', exact: true });
      expect(await tracking.getAttribute('href')).toBe('/profile');
      const signIn = page.getByRole('banner').getByRole('link', { name: 'Sign in', exact: true });
      expect(await signIn.getAttribute('href')).toBe('/login?from=%2F');
      const profile = page.getByRole('banner').getByRole('link', { name: 'Profile', exact: true });
      expect(await profile.getAttribute('href')).toBe('/profile');
      expect(await profile.locator('svg').count()).toBe(1);
      expect(await profile.locator('img').count()).toBe(0);
    });

    it("shows 'Page not found.' on an unknown route, with a Home button back to '/'", async () => {
      await page.goto(`${stack.url}/no/such/page-${RUN}`);
      await visible(page.getByRole('heading', { level: 1, name: SPEC.pageNotFound }));
      await screenshots(page, 'not-found');

      await page.getByRole('button', { name: 'Home', exact: true }).click();
      await visible(page.getByRole('heading', { level: 1, name: SPEC.homeHeading }));
      expect(page.url()).toBe(`${stack.url}/`);
    });

    it("opens '/tc' and '/privacy_policy' from the footer, and the source link in a new tab", async () => {
      const footer = page.getByRole('contentinfo');
      expect(await footer.getByRole('link', { name: /^Source code/ }).getAttribute('target')).toBe(
        '_blank',
      );

      await footer.getByRole('link', { name: 'Terms and conditions' }).click();
      await visible(page.getByRole('heading', { level: 1, name: 'Terms and conditions' }));
      expect(page.url()).toBe(`${stack.url}/tc`);
      await screenshots(page, 'terms');

      await footer.getByRole('link', { name: 'Privacy policy' }).click();
      await visible(page.getByRole('heading', { level: 1, name: 'Privacy policy' }));
      expect(page.url()).toBe(`${stack.url}/privacy_policy`);
      await screenshots(page, 'privacy');
    });
  });

  describe('signed in through the (mock) Google sign-in', () => {
    let page: Page;
    const target7 = (): string => target('seven-days');
    const target30 = (): string => target('thirty-days');
    let shortenedAt = 0;

    const listHeading = `${USER.name}'s URLs`;
    const items = (): Locator =>
      page.getByRole('region', { name: listHeading }).getByRole('listitem');
    const itemFor = (url: string): Locator =>
      items().filter({ has: page.getByText(url, { exact: true }) });
    const visitorRows = (): Locator =>
      page.getByRole('region', { name: 'Visitor log' }).getByRole('listitem');

    /** Presses a refresh button and waits for the answer it asked for. */
    async function refresh(path: string): Promise<void> {
      await Promise.all([
        page.waitForResponse((response) => new URL(response.url()).pathname === path),
        page.getByRole('button', { name: 'Refresh', exact: true }).click(),
      ]);
    }

    beforeAll(async () => {
      page = await newJourneyPage();
    });
    afterAll(() => page?.context().close());

    it("signs in from the prompt on /profile through the provider and back to /profile: 'Loading....', then the name, the picture and 'No urls to display'", async () => {
      await page.goto(`${stack.url}/profile`);
      const signIn = await visible(page.getByRole('link', { name: SPEC.signIn, exact: true }));
      // The user data is held back on arrival so that the wait state is seen for certain.
      const held = await holdNextRequest(page, /\/api\/user$/);
      const pathIs = (pathname: string) => (response: Response) =>
        new URL(response.url()).pathname === pathname;
      const login = page.waitForResponse(pathIs('/login'));
      const callback = page.waitForResponse(pathIs('/auth/google/callback'));
      // Should /login fail, its status is the failure to report, not the callback's timeout.
      void callback.catch(() => undefined);
      await signIn.click();
      // Each hop answers as a browser expects: on to the provider, then back with cookies.
      expect((await login).status()).toBe(302);
      expect((await callback).status()).toBe(302);
      await held.arrived;
      expect(page.url()).toBe(`${stack.url}/profile`);
      expect(providerRequests.some((url) => url.startsWith(provider.authorizationUrl))).toBe(true);
      await visible(page.getByText(SPEC.profileLoading, { exact: true }));
      await screenshots(page, 'profile-loading');
      held.release();

      await visible(page.getByRole('heading', { level: 1, name: listHeading }));
      await visible(page.getByText(SPEC.noUrls, { exact: true }));
      await visible(page.getByRole('button', { name: SPEC.shortenAUrl, exact: true }));

      const cookies = await page.context().cookies(stack.url);
      expect(cookies.find((cookie) => cookie.name === 'loggedIn')?.value).toBe('true');
      expect(cookies.find((cookie) => cookie.name === 'sid')?.httpOnly).toBe(true);

      // The profile link shows the user's picture, loaded, instead of the generic icon.
      const avatar = page.getByRole('link', { name: 'Profile', exact: true }).locator('img');
      await visible(avatar);
      expect(await avatar.getAttribute('src')).toBe(USER.picture);
      await eventually(async () =>
        expect(
          await avatar.evaluate(
            (image: unknown) => (image as { naturalWidth: number }).naturalWidth,
          ),
        ).toBeGreaterThan(0),
      );
      await screenshots(page, 'profile-empty');
    });

    it('gets the home page prerendered signed in (profile link, alias field, every expiry), taken over without a hydration error', async () => {
      // The same browser profile: its cookies and cached userData.
      const home = await page.context().newPage();
      try {
        const opened = await openHomeWithScriptHeld(home);
        const main = home.getByRole('navigation', { name: 'Main' });
        await visible(main.getByRole('link', { name: 'Profile', exact: true }));
        expect(await main.getByRole('link', { name: 'Sign in', exact: true }).count()).toBe(0);
        await visible(home.getByRole('textbox', { name: /Alias/ }));
        for (const days of [15, 30, 60]) {
          const option = home.getByRole('button', { name: `${days} days`, exact: true });
          expect(await option.isDisabled()).toBe(false);
        }
        const { kept, errors } = await opened.run();
        expect(kept).toBe(true);
        expect(errors).toEqual([]);
        // Then what the browser knows: the user's picture.
        const avatar = main.getByRole('link', { name: 'Profile', exact: true }).locator('img');
        expect(await (await visible(avatar)).getAttribute('src')).toBe(USER.picture);
      } finally {
        await home.close();
      }
    });

    it('shortens with the default 7 days and then 30 days, every expiry enabled without the hint, clearing the cached userData', async () => {
      await page.getByRole('button', { name: SPEC.shortenAUrl, exact: true }).click();
      await visible(page.getByRole('heading', { level: 1, name: SPEC.homeHeading }));
      expect(page.url()).toBe(`${stack.url}/`);
      for (const days of [7, 15, 30, 60]) {
        const option = page.getByRole('button', { name: `${days} days`, exact: true });
        expect(await option.isDisabled()).toBe(false);
      }
      expect(await page.getByText(SPEC.expiryHint).count()).toBe(0);
      expect((await localStorageOf(page, stack.url)).has('userData')).toBe(true);
      await screenshots(page, 'home-signed-in');

      shortenedAt = Date.now();
      code7 = codeOf(await shorten(page, target7()));
      expect((await localStorageOf(page, stack.url)).has('userData')).toBe(false);

      const thirty = page.getByRole('button', { name: '30 days', exact: true });
      await thirty.click();
      expect(await thirty.getAttribute('aria-pressed')).toBe('true');
      expect(
        await page
          .getByRole('button', { name: '7 days', exact: true })
          .getAttribute('aria-pressed'),
      ).toBe('false');
      code30 = codeOf(await shorten(page, target30()));
      expect(code30).not.toBe(code7);
    });

    it("lists both, newest first, with position, original URL, visitCount 0 and an 'Expires In' counting down", async () => {
      await page.getByRole('link', { name: 'Tracking', exact: true }).click();
      await visible(page.getByRole('heading', { level: 1, name: listHeading }));
      await eventually(async () => expect(await items().count()).toBe(2));

      const expected = [
        { url: target30(), days: 30 },
        { url: target7(), days: 7 },
      ];
      for (const [index, { url, days }] of expected.entries()) {
        const item = items().nth(index);
        await visible(item.getByText(url, { exact: true }));
        expect(await item.locator(':scope > span').first().textContent()).toBe(String(index + 1));
        expect(await definition(item, 'visitCount').textContent()).toBe('0');
        const left = parseRemaining(await definition(item, 'Expires In').textContent());
        expect(left).toBeLessThanOrEqual(days * DAY_S);
        expect(left).toBeGreaterThan(days * DAY_S - 300);
      }

      // Two readings more than a second apart: the countdown runs on its own.
      const expiresIn = definition(itemFor(target30()), 'Expires In');
      const first = parseRemaining(await expiresIn.textContent());
      await sleep(1_200);
      const second = parseRemaining(await expiresIn.textContent());
      expect(second).toBeLessThan(first);
      expect(first - second).toBeLessThanOrEqual(5);

      await screenshots(page, 'profile-list');
    });

    it("opens an unvisited link by its details button: the original URL opening in a new tab with its query apart, the short link with a copy button, the dates and 'No visitors found'", async () => {
      await itemFor(target7()).getByRole('button', { name: 'Details', exact: true }).click();
      await page.waitForURL(`${stack.url}/profile/${code7}`);

      const original = page.getByRole('heading', { level: 1 }).getByRole('link');
      expect(await original.getAttribute('href')).toBe(target7());
      expect(await original.getAttribute('target')).toBe('_blank');
      const queryAt = target7().indexOf('?');
      const base = original.getByText(target7().slice(0, queryAt), { exact: true });
      const query = original.getByText(target7().slice(queryAt), { exact: true });
      const styleOf = (locator: Locator): Promise<string> =>
        locator.evaluate((element: unknown) => {
          const style = (globalThis as unknown as ComputedStyleGlobals).getComputedStyle(element);
          return `${style.color} ${style.fontWeight}`;
        });
      expect(await styleOf(query)).not.toBe(await styleOf(base));

      const shortLink = `${stack.url}/r/${code7}`;
      await visible(page.getByText(shortLink, { exact: true }));
      await page.getByRole('button', { name: 'Copy short link', exact: true }).click();
      await visible(page.getByText(SPEC.copied, { exact: true }));
      expect(await readClipboard(page)).toBe(shortLink);

      const createdAt = parseDateTime((await definition(page, 'Created at').textContent()) ?? '');
      expect(Math.abs(createdAt - shortenedAt)).toBeLessThan(120_000);
      const left = parseRemaining(await definition(page, 'Expires in').textContent());
      expect(left).toBeGreaterThan(7 * DAY_S - 300);
      expect(await definition(page, 'Visitors').textContent()).toBe('0');

      const visitorLog = page.getByRole('region', { name: 'Visitor log' });
      await visible(visitorLog.getByText(SPEC.noVisitors, { exact: true }));
      await visible(visitorLog.getByRole('button', { name: 'Refresh', exact: true }));
      await screenshots(page, 'detail-no-visitors');
    });

    it('counts a visit of the short link: after refreshing, visitCount is 1 and the detail lists the visit with time, platform, browser and IP', async () => {
      await page.getByRole('button', { name: 'Back', exact: true }).click();
      await page.waitForURL(`${stack.url}/profile`);

      const visitor = await page.context().newPage();
      const visitedAt = Date.now();
      await visitor.goto(`${stack.url}/r/${code30}`);
      expect(visitor.url()).toBe(target30());
      expect(await visitor.title()).toBe(landing.title);
      await visitor.close();

      // The visit reaches the count through Kafka and the analytics consumer, in its own time.
      const visitCount = definition(itemFor(target30()), 'visitCount');
      await eventually(
        async () => {
          await refresh('/api/user');
          expect(await visitCount.textContent()).toBe('1');
        },
        { timeoutMs: 45_000, intervalMs: 500 },
      );
      expect(await definition(itemFor(target7()), 'visitCount').textContent()).toBe('0');

      // A click on the item itself (not its details button) opens the detail too.
      await itemFor(target30()).getByText(target30(), { exact: true }).click();
      await page.waitForURL(`${stack.url}/profile/${code30}`);
      expect(await definition(page, 'Visitors').textContent()).toBe('1');
      await eventually(
        async () => {
          if ((await visitorRows().count()) === 0) await refresh(`/api/visitors/${code30}`);
          expect(await visitorRows().count()).toBe(1);
        },
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      const visit = visitorRows().first();
      const time = parseDateTime((await definition(visit, 'Time').textContent()) ?? '');
      expect(Math.abs(time - visitedAt)).toBeLessThan(120_000);
      expect(await definition(visit, 'Device').textContent()).toBe('Linux');
      expect(await definition(visit, 'Browser').textContent()).toMatch(
        /^(Chrome|Chromium)( Headless)?$/,
      );
      expect(await definition(visit, 'IP address').textContent()).toMatch(/^(127\.0\.0\.1|::1)$/);
      await screenshots(page, 'detail-visitors');
    });

    it('deletes from the detail page: back on the list without the link, its cached visitors gone', async () => {
      expect((await localStorageOf(page, stack.url)).has(`visitors-${code30}`)).toBe(true);
      // The answer is held back so that the deleting state is seen (and pictured) for certain.
      const held = await holdNextRequest(page, /\/api\/delete\//);
      const deleteButton = page.getByRole('button', { name: 'Delete', exact: true });
      await deleteButton.click();
      await held.arrived;
      expect(await deleteButton.getAttribute('aria-busy')).toBe('true');
      await screenshots(page, 'detail-deleting');
      held.release();
      await page.waitForURL(`${stack.url}/profile`);

      await eventually(async () => expect(await items().count()).toBe(1));
      expect(await itemFor(target30()).count()).toBe(0);
      await visible(itemFor(target7()));
      const storage = await localStorageOf(page, stack.url);
      expect(storage.has(`visitors-${code30}`)).toBe(false);
      expect(storage.get('userData') ?? '').not.toContain(code30);

      // Gone on the server too, not only from what the page remembers.
      await refresh('/api/user');
      expect(await itemFor(target30()).count()).toBe(0);
      expect(await items().count()).toBe(1);
    });

    it("deletes from the list by the trash button, leaving 'No urls to display' also after a refresh", async () => {
      await itemFor(target7()).getByRole('button', { name: 'Delete', exact: true }).click();
      await visible(page.getByText(SPEC.noUrls, { exact: true }));
      expect(await items().count()).toBe(0);

      await refresh('/api/user');
      await visible(page.getByText(SPEC.noUrls, { exact: true }));
      expect(await items().count()).toBe(0);
    });

    it("shows 'Url not found' for an id that is not one of the user's links", async () => {
      await page.goto(`${stack.url}/profile/unknown${RUN}`);
      await visible(page.getByRole('heading', { level: 1, name: SPEC.urlNotFound }));
      await screenshots(page, 'url-not-found');
      // A deleted link is unknown as well.
      await page.goto(`${stack.url}/profile/${code30}`);
      await visible(page.getByRole('heading', { level: 1, name: SPEC.urlNotFound }));
    });

    it(`shows 'Load more' under a full page of visitors (${VISITS_PAGE_DEFAULT}), and the rest after pressing it`, async () => {
      const many = target('many-visitors');
      await page.goto(`${stack.url}/`);
      const code = codeOf(await shorten(page, many));

      // One visit more than a page, each from its own address (the stack believes
      // X-Forwarded-For from loopback), straight from Node rather than a browser each.
      const visits = VISITS_PAGE_DEFAULT + 1;
      for (let visit = 1; visit <= visits; visit++) {
        const response = await fetch(`${stack.url}/r/${code}`, {
          redirect: 'manual',
          headers: {
            'x-forwarded-for': `198.51.100.${visit}`,
            'user-agent':
              'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/140.0 Safari/537.36',
          },
        });
        expect({ status: response.status, location: response.headers.get('location') }).toEqual({
          status: 302,
          location: many,
        });
      }

      await page.goto(`${stack.url}/profile/${code}`);
      const loadMore = page.getByRole('button', { name: SPEC.loadMore, exact: true });
      // The visits reach analytics through Kafka in their own time.
      await eventually(
        async () => {
          await refresh(`/api/visitors/${code}`);
          expect(await visitorRows().count()).toBe(VISITS_PAGE_DEFAULT);
          expect(await loadMore.count()).toBe(1);
        },
        { timeoutMs: 60_000, intervalMs: 1_000 },
      );
      await screenshots(page, 'detail-load-more');

      await loadMore.click();
      await eventually(async () => expect(await visitorRows().count()).toBe(visits));
      expect(await loadMore.count()).toBe(0);
    });

    it('lists a URL as the redirect sends visitors there: hidden characters encoded, a host mixing scripts marked', async () => {
      // A zero-width space in the query, and a host whose first letter is Cyrillic.
      const hidden = `${target('hidden')}&x=a\u200Bb`;
      const lookalike = `http://\u0430pple.test/${RUN}`;
      await page.goto(`${stack.url}/`);
      await shorten(page, hidden);
      await urlInput(page).fill('');
      await shorten(page, lookalike);
      await page.goto(`${stack.url}/profile`);
      await refresh('/api/user');

      const normalised = new URL(hidden).href;
      expect(normalised).toContain('a%E2%80%8Bb');
      await visible(itemFor(normalised));
      expect(await items().filter({ hasText: hidden }).count()).toBe(0);
      const badge = items().getByRole('note');
      await visible(badge);
      expect(await badge.getAttribute('aria-label')).toContain(new URL(lookalike).hostname);
      await visible(itemFor(new URL(lookalike).href));
      await screenshots(page, 'profile-normalised-urls');
    });

    it("signs out with 'Sign out': a same-origin POST /logout ends the session, and /profile asks to sign in again", async () => {
      await page.goto(`${stack.url}/profile`);
      const [logout] = await Promise.all([
        page.waitForResponse((response) => new URL(response.url()).pathname === '/logout'),
        page.getByRole('button', { name: 'Sign out', exact: true }).click(),
      ]);
      expect(logout.request().method()).toBe('POST');
      expect(logout.status()).toBe(302);
      const cookies = await page.context().cookies(stack.url);
      expect(cookies.find((cookie) => cookie.name === 'sid')).toBeUndefined();
      expect(cookies.find((cookie) => cookie.name === 'loggedIn')).toBeUndefined();
      await page.goto(`${stack.url}/profile`);
      await visible(page.getByRole('heading', { level: 1, name: SPEC.mustLogin }));
    });
  });

  describe('keyboard only', () => {
    // No mouse anywhere below: only page.keyboard (Tab, Shift+Tab, Enter, Space, typing),
    // and every element the focus passes shows a visible ring (keyboardTo measures it).
    let page: Page;
    const keyboardTarget = (): string => target('keyboard');
    const listHeading = `${USER.name}'s URLs`;

    beforeAll(async () => {
      page = await newJourneyPage();
    });
    afterAll(() => page?.context().close());

    it('signs in, shortens, copies, opens the profile, opens the link and deletes it, all by keyboard with a visible focus ring', async () => {
      // Sign in by following the prompt's link with Enter.
      await page.goto(`${stack.url}/profile`);
      await keyboardTo(page, page.getByRole('link', { name: SPEC.signIn, exact: true }));
      await page.keyboard.press('Enter');
      await visible(page.getByRole('heading', { level: 1, name: listHeading }), 30_000);

      // Home by the top bar's title link.
      const title = page.getByRole('banner').getByRole('link', { name: 'URL Shortener' });
      await keyboardTo(page, title, { key: 'Shift+Tab' });
      await page.keyboard.press('Enter');
      await visible(page.getByRole('heading', { level: 1, name: SPEC.homeHeading }));

      // Shorten: type the URL, then Space on the button.
      await keyboardTo(page, urlInput(page));
      await page.keyboard.type(keyboardTarget());
      await keyboardTo(page, mainButton(page, SPEC.shorten));
      await page.keyboard.press('Space');
      await visible(mainButton(page, SPEC.copy));
      const shortLink = await urlInput(page).inputValue();
      expect(shortLink).toMatch(shortLinkPattern());
      const code = codeOf(shortLink);

      // Copy: Enter on the same button, which kept the focus.
      await page.keyboard.press('Enter');
      await visible(mainButton(page, SPEC.copied));
      expect(await readClipboard(page)).toBe(shortLink);

      // The profile by the top bar's 'Tracking' link, back up the page.
      await keyboardTo(page, page.getByRole('link', { name: 'Tracking', exact: true }), {
        key: 'Shift+Tab',
      });
      await page.keyboard.press('Enter');
      const list = page.getByRole('region', { name: listHeading });
      const item = list
        .getByRole('listitem')
        .filter({ has: page.getByText(keyboardTarget(), { exact: true }) });
      await visible(item);

      // The link's details by its button.
      await keyboardTo(page, item.getByRole('button', { name: 'Details', exact: true }));
      await page.keyboard.press('Enter');
      await page.waitForURL(`${stack.url}/profile/${code}`);
      const original = page.getByRole('heading', { level: 1 }).getByRole('link');
      expect(await original.getAttribute('href')).toBe(keyboardTarget());

      // Delete it from the detail page: back on the list, without it.
      await keyboardTo(page, page.getByRole('button', { name: 'Delete', exact: true }));
      await page.keyboard.press('Enter');
      await page.waitForURL(`${stack.url}/profile`);
      await visible(page.getByRole('heading', { level: 1, name: listHeading }));
      await eventually(async () => expect(await item.count()).toBe(0));
      expect(apiCalls.map((call) => `${call.method} ${call.path}`)).toContain(
        `POST /api/delete/${code}`,
      );
    });
  });

  it('made every API call in the shape of SPEC section 7, each with X-Requested-With', () => {
    const calls = apiCalls.map(({ method, path }) => `${method} ${path}`);
    const shortenCall = (url: string, days: number): string =>
      `POST /api/shorten/?url=${encodeURIComponent(url)}&days=${days}`;
    expect(calls).toEqual(
      expect.arrayContaining([
        shortenCall(target('anonymous'), 7),
        'GET /api/user',
        shortenCall(target('seven-days'), 7),
        shortenCall(target('thirty-days'), 30),
        `GET /api/visitors/${code7}`,
        `GET /api/visitors/${code30}`,
        `POST /api/delete/${code30}`,
        `POST /api/delete/${code7}`,
      ]),
    );
    // But the stats' live stream (issue 15): EventSource cannot send the header, and the
    // gateway checks that the request is same-origin instead.
    expect(
      apiCalls.filter(
        (call) =>
          call.requestedWith !== 'XMLHttpRequest' && !/^\/api\/stats\/[^/]+\/live$/.test(call.path),
      ),
    ).toEqual([]);
  });
});

/** getComputedStyle, described here since the tests are typechecked without the DOM library. */
interface ComputedStyleGlobals extends PageGlobals {
  getComputedStyle(element: unknown): { color: string; fontWeight: string };
}
