import path from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { startOAuth2Mock, type OAuth2Mock, type Stack } from '@shortener/testkit';
import {
  DESKTOP,
  launchChromium,
  PHONE,
  readClipboard,
  screenshots,
  startJourneyStack,
  visible,
} from './support/browser';

// Issue 37, item 11: the list of links at 1280 and 390 px in Chromium against the whole stack.
// Each row copies its short link (shown on the row); a destination shows its host whole and
// cuts its path with one ellipsis; a wide screen gives the list its width. Pictured at both
// widths (artifacts/screenshots/issue37-list-*), axe-core clean.

const RUN = Date.now().toString(36);
const FULL_NAME = 'Lena List';
const MEASURE_SCRIPT = path.join(__dirname, 'support/measure-in-page.js');
const LONG_HOST = 'very-long-domain-name-for-testing-the-list.example.com';
const LONG_URL =
  `https://${LONG_HOST}/articles/2026/11/a-very-long-path-segment-that-goes-on-and-on/` +
  `and-on-and-on/final-page-${RUN}.html`;

interface Shown {
  shown: boolean;
  why: string;
}
interface Measure {
  fullyShown(root: unknown, text: string): Shown;
}

function fullyShown(locator: Locator, text: string): Promise<Shown> {
  return locator.evaluate(
    (root, fragment) =>
      (globalThis as unknown as { __measure: Measure }).__measure.fullyShown(root, fragment),
    text,
  );
}

/** How many parts of the element cut their text (an ellipsis each). */
function cutParts(locator: Locator): Promise<number> {
  return locator.evaluate((root) => {
    const all = [
      root,
      ...(root as { querySelectorAll(s: string): unknown[] }).querySelectorAll('*'),
    ];
    return all.filter((node) => {
      const element = node as {
        scrollWidth: number;
        clientWidth: number;
        classList: { contains(name: string): boolean };
      };
      // The scheme is read out, not shown (a 1 px box).
      if (element.classList.contains('visually-hidden')) return false;
      return element.clientWidth > 0 && element.scrollWidth > element.clientWidth + 0.5;
    }).length;
  });
}

describe('issue 37: the list of links at 1280 and 390 px', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  const codes: string[] = [];

  const item = (code: string): Locator =>
    page.getByRole('listitem').filter({ hasText: `/r/${code}` });

  async function shorten(url: string): Promise<string> {
    const answer = await page.evaluate(async (target) => {
      const response = await fetch(`/api/shorten/?url=${encodeURIComponent(target)}&days=30`, {
        method: 'POST',
        headers: { 'X-Requested-With': 'XMLHttpRequest' },
      });
      return { status: response.status, body: (await response.json()) as { url: string } };
    }, url);
    expect(answer.status).toBe(201);
    return answer.body.url;
  }

  beforeAll(async () => {
    provider = await startOAuth2Mock({
      lena: { sub: `list-${RUN}`, name: FULL_NAME, picture: '', email: 'lena@example.com' },
    });
    stack = await startJourneyStack(provider);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
    await context.addInitScript({ path: MEASURE_SCRIPT });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await page.goto(`${stack.url}/profile`);
    await page.getByRole('link', { name: 'Sign in with Google', exact: true }).click();
    await visible(page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 30_000);
    codes.push(await shorten(`https://example.com/short/${RUN}`));
    codes.push(await shorten(LONG_URL));
    codes.push(await shorten(`https://example.org/docs/${RUN}?page=2`));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await visible(item(codes[2]!));
  }, 150_000);

  afterAll(async () => {
    await page?.context().close();
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
  });

  it('copies the short link of any row with its Copy button, the link readable on the row', async () => {
    const host = new URL(stack.url).host;
    for (const code of codes) {
      const short = await visible(item(code).locator('.link-item__short'));
      // Read out as what it is; shown as the address itself, whole.
      expect(await short.textContent()).toBe(`Short link: ${host}/r/${code}`);
      expect(await fullyShown(short, `${host}/r/${code}`)).toEqual({ shown: true, why: '' });
    }
    const row = item(codes[0]!);
    const copy = row.getByRole('button', { name: 'Copy short link' });
    await copy.click();
    await visible(copy.getByText('Copied', { exact: true }));
    expect(await readClipboard(page)).toBe(`${stack.url}/r/${codes[0]!}`);
    // Copying is not opening: the list stays.
    expect(new URL(page.url()).pathname).toBe('/profile');
  });

  it('shows the host whole and cuts the path with one ellipsis, at both widths, the list as wide as a wide screen allows', async () => {
    const row = item(codes[1]!);
    const url = row.locator('.link-item__url');
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      await row.scrollIntoViewIfNeeded();
      expect({ width: size.width, host: await fullyShown(url, LONG_HOST) }).toEqual({
        width: size.width,
        host: { shown: true, why: '' },
      });
      // The file at the path's end stays in sight; the middle gives way, in one place.
      expect({ width: size.width, end: await fullyShown(url, `final-page-${RUN}.html`) }).toEqual({
        width: size.width,
        end: { shown: true, why: '' },
      });
      expect({ width: size.width, cut: await cutParts(url) }).toEqual({
        width: size.width,
        cut: 1,
      });
      // The whole URL is still the item's text, for screen readers.
      expect(await url.textContent()).toContain(LONG_URL);
    }
    await page.setViewportSize(DESKTOP);
    // A 1280 px screen: the list is not held to a 720 px column.
    const box = await row.boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(1000);
    await screenshots(page, 'issue37-list');
  });
});
