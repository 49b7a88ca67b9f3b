import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, type Download, type Locator, type Page } from 'playwright-core';
import { startOAuth2Mock, type OAuth2Mock, type Stack } from '@shortener/testkit';
import { encode } from 'uqr';
import {
  ARTIFACTS,
  DESKTOP,
  eventually,
  expectAccessible,
  holdNextRequest,
  keyboardTo,
  type LandingServer,
  launchChromium,
  PHONE,
  SCREENSHOT_DIR,
  screenshots,
  startJourneyStack,
  startLandingServer,
  visible,
} from './support/browser';

// Issue 15's Stats section in Chromium against the whole stack from its builds: visits made
// through /r/ with known addresses (handed to the redirect service as the edge hands them,
// the address in X-Forwarded-For, which it believes from loopback),
// User-Agents and referrers give exactly the expected numbers and countries; a visit made
// while the page is open shows up live; the CSV and the QR code download; each state passes
// axe-core and is pictured at 1280 and 390 px, where nothing in the section overflows.

const RUN = Date.now().toString(36);
const FULL_NAME = 'Stella Statistics';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const CSV_HEADER =
  'time,ip,country,platform,browser,device,referrer,bot,utm_source,utm_medium,utm_campaign';

/** What the section's lists read, one "name visits" entry a line. */
async function entries(list: Locator): Promise<string[]> {
  return (await list.getByRole('listitem').allInnerTexts()).map((text) =>
    text.replace(/\s+/g, ' ').trim(),
  );
}

async function downloaded(download: Download): Promise<Buffer> {
  const file = await download.path();
  return readFile(file);
}

describe('the Stats section of a link', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let landing: LandingServer;
  let browser: Browser;
  let page: Page;
  let code = '';
  let target = '';
  const journal: string[] = [];
  /** The /api calls the page made, with their X-Requested-With. */
  const apiCalls: { path: string; requestedWith: string | undefined }[] = [];

  const section = (): Locator => page.getByRole('region', { name: 'Stats' });
  const total = (term: string): Locator =>
    section().locator(`xpath=.//dt[normalize-space(.)="${term}"]/following-sibling::dd[1]`);
  const list = (title: string): Locator => section().getByRole('region', { name: title });
  const liveIndicator = (): Locator => section().getByRole('status').first();
  /** The spec's 'Visitors' number in the link's detail card. */
  const visitorCount = (): Locator =>
    page.locator('xpath=//dt[normalize-space(.)="Visitors"]/following-sibling::dd[1]').first();
  const visitorRows = (): Locator =>
    page.getByRole('region', { name: 'Visitor log' }).getByRole('listitem');

  /**
   * One visit of the short link from Node, as a visitor at `ip` with `userAgent`: as the
   * edge passes it on (every client here is on loopback, so only a hop the redirect service
   * trusts can give another address; the edge itself replaces any a client writes).
   */
  async function visit(ip: string, userAgent: string, referrer?: string): Promise<void> {
    const response = await fetch(`${stack.get('redirect').url}/r/${code}`, {
      redirect: 'manual',
      headers: {
        'x-forwarded-for': ip,
        'user-agent': userAgent,
        ...(referrer ? { referer: referrer } : {}),
      },
    });
    expect({ status: response.status, location: response.headers.get('location') }).toEqual({
      status: 302,
      location: target,
    });
  }

  /** Nothing inside the section reaches past its right edge, and it does not scroll sideways. */
  async function fitsItsWidth(): Promise<{
    scrollWidth: number;
    clientWidth: number;
    past: string[];
  }> {
    return section().evaluate((root) => {
      interface Box {
        right: number;
        left: number;
      }
      interface Element {
        scrollWidth: number;
        clientWidth: number;
        getBoundingClientRect(): Box;
        querySelectorAll(selector: string): Element[];
        tagName: string;
        getAttribute(name: string): string | null;
      }
      const element = root as Element;
      const edge = element.getBoundingClientRect();
      const past = [...element.querySelectorAll('*')]
        .filter((child) => {
          const box = child.getBoundingClientRect();
          // Boxless elements (an SVG <title>) take no room.
          if (box.right === box.left) return false;
          return box.right > edge.right + 0.5 || box.left < edge.left - 0.5;
        })
        .map((child) => `${child.tagName}.${String(child.getAttribute('class'))}`);
      return { scrollWidth: element.scrollWidth, clientWidth: element.clientWidth, past };
    });
  }

  async function toTop(): Promise<void> {
    await page.evaluate(() => {
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0);
    });
  }

  /** The section alone, pictured at both widths, measured at 390 px. */
  async function pictureSection(name: string): Promise<void> {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      // From the top of the page, so the sticky top bar stays above the section, not over it.
      await toTop();
      const box = await section().boundingBox();
      if (!box) throw new Error('the Stats section has no box');
      await page.screenshot({
        path: path.join(SCREENSHOT_DIR, `${name}-${size.width}.png`),
        fullPage: true,
        clip: box,
        animations: 'disabled',
      });
      const fit = await fitsItsWidth();
      expect({ width: size.width, ...fit }).toEqual({
        width: size.width,
        scrollWidth: fit.clientWidth,
        clientWidth: fit.clientWidth,
        past: [],
      });
      expect(fit.scrollWidth).toBeLessThanOrEqual(fit.clientWidth);
    }
    await page.setViewportSize(DESKTOP);
  }

  beforeAll(async () => {
    landing = await startLandingServer();
    provider = await startOAuth2Mock({
      stella: { sub: `stats-${RUN}`, name: FULL_NAME, picture: '', email: 'stella@example.com' },
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
      if (url.origin === stack.url && url.pathname.startsWith('/api/')) {
        apiCalls.push({
          path: `${url.pathname}${url.search}`,
          requestedWith: request.headers()['x-requested-with'],
        });
      }
    });
    page = await context.newPage();

    await page.goto(`${stack.url}/profile`);
    await page.getByRole('link', { name: 'Sign in with Google', exact: true }).click();
    await visible(page.getByRole('heading', { level: 1, name: `${FULL_NAME}'s URLs` }), 30_000);

    target = `${landing.origin}/landing?journey=stats&run=${RUN}`;
    await page.goto(`${stack.url}/`);
    await page.getByLabel('URL to shorten').fill(target);
    await page.getByRole('button', { name: 'Shorten', exact: true }).click();
    await visible(page.getByRole('button', { name: 'Copy', exact: true }));
    const shortLink = await page.getByLabel('URL to shorten').inputValue();
    code = shortLink.slice(`${stack.url}/r/`.length);
    expect(code).toMatch(/^[0-9A-Za-z]{7}$/);
  }, 150_000);

  afterAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(
      path.join(ARTIFACTS, 'e2e-stats.log'),
      [...journal, '=== services', stack?.output() ?? ''].join('\n'),
    );
    await page?.context().close();
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
    await landing?.stop();
  });

  it('shows the exact totals, unique visitors and breakdowns of visits with known addresses, agents and referrers', async () => {
    // A person in the US twice (one unique visitor), one in Australia, and a bot.
    await visit('8.8.8.8', CHROME_WINDOWS, 'https://News.Example.org/story?x=1');
    await visit('8.8.8.8', CHROME_WINDOWS);
    await visit('1.1.1.1', SAFARI_IPHONE);
    await visit('8.8.8.8', GOOGLEBOT);

    // The visits reach the stats through Kafka and analytics in their own time.
    await page.goto(`${stack.url}/profile/${code}`);
    await eventually(
      async () => {
        await page.reload();
        expect(await total('Visits').textContent({ timeout: 10_000 })).toBe('4');
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(await total('People').textContent()).toBe('3');
    expect(await total('Bots').textContent()).toBe('1');
    // When the page's answer came before the visits were stored, the live stream counted
    // them (seen in CI: 4 visits, 0 unique visitors): the page counts them again by itself.
    await eventually(
      async () => {
        expect(await total('Unique visitors').textContent()).toBe('3');
        expect(await entries(list('Referrers'))).toEqual(['Direct 3', 'news.example.org 1']);
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    expect(await total('Visits').textContent()).toBe('4');
    expect(await entries(list('Countries'))).toEqual(['United States (US) 3', 'Australia (AU) 1']);
    expect(await entries(list('Devices'))).toEqual(['Desktop 2', 'Bot 1', 'Phone 1']);
    expect(await entries(list('OS'))).toEqual(expect.arrayContaining(['Windows 2', 'iOS 1']));
    expect(await entries(list('Browsers'))).toEqual(
      expect.arrayContaining(['Chrome 2', 'Mobile Safari 1']),
    );
    const chart = section().getByRole('img', { name: /^Visits per day/ });
    expect(await chart.getAttribute('aria-label')).toBe(
      'Visits per day: 3 by people and 1 by bots, at most 4 in one day',
    );
    // 7 days: one bar per day, today's holding all four.
    const bars = chart.locator('g');
    expect(await bars.count()).toBe(7);
    expect(await bars.last().getAttribute('data-visits')).toBe('4');
    expect(
      apiCalls.filter((call) => call.path === `/api/stats/${code}?range=7d`).length,
    ).toBeGreaterThan(0);
  });

  it('asks for the range chosen: 24h by the hour, All the same total as the link', async () => {
    const answer = page.waitForResponse(
      (response) => new URL(response.url()).search === '?range=24h',
    );
    await section().getByRole('button', { name: '24h', exact: true }).click();
    expect((await answer).status()).toBe(200);
    await visible(section().getByRole('img', { name: /^Visits per hour/ }));
    expect(
      await section()
        .getByRole('img', { name: /^Visits per hour/ })
        .locator('g')
        .count(),
    ).toBe(24);
    expect(await total('Visits').textContent()).toBe('4');
    expect(
      await section()
        .getByRole('button', { name: '24h', exact: true })
        .getAttribute('aria-pressed'),
    ).toBe('true');

    await section().getByRole('button', { name: 'All', exact: true }).click();
    await eventually(() =>
      expect(apiCalls.map((call) => call.path)).toContain(`/api/stats/${code}?range=all`),
    );
    await eventually(async () =>
      expect(
        await section()
          .getByRole('button', { name: 'All', exact: true })
          .getAttribute('aria-pressed'),
      ).toBe('true'),
    );
    await eventually(async () => expect(await total('Visits').textContent()).toBe('4'));
    // The link's visitCount, as the server has it.
    const visitCount = await page.evaluate(async (urlID) => {
      const answer = await (
        globalThis as unknown as {
          fetch(url: string, init: unknown): Promise<{ json(): Promise<unknown> }>;
        }
      ).fetch('/api/user', { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      const user = (await answer.json()) as { urls: { urlID: string; visitCount: number }[] };
      return user.urls.find((link) => link.urlID === urlID)?.visitCount;
    }, code);
    expect(visitCount).toBe(4);
    await section().getByRole('button', { name: '7d', exact: true }).click();
    await visible(section().getByRole('img', { name: /^Visits per day/ }));
  });

  it('shows a visit made while the page is open within seconds, without a reload', async () => {
    await eventually(async () => expect(await liveIndicator().textContent()).toBe('Live'), {
      timeoutMs: 15_000,
    });
    // A mark in the page that a reload would wipe.
    await page.evaluate(() => {
      (globalThis as unknown as { stillTheSamePage: boolean }).stillTheSamePage = true;
    });
    // The detail's count, as the page knew it (its cached user data may be older).
    const countBefore = Number(await visitorCount().textContent());
    const visitedAt = Date.now();
    await visit('193.0.14.129', CHROME_WINDOWS);

    await eventually(async () => expect(await total('Visits').textContent()).toBe('5'), {
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    const seconds = (Date.now() - visitedAt) / 1000;
    journal.push(`live visit shown after ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(10);
    expect(await total('People').textContent()).toBe('4');
    expect(await entries(list('Countries'))).toEqual([
      'United States (US) 3',
      'Australia (AU) 1',
      'Netherlands (NL) 1',
    ]);
    expect(
      await section()
        .getByRole('img', { name: /^Visits per day/ })
        .locator('g')
        .last()
        .getAttribute('data-visits'),
    ).toBe('5');
    // At the top of the visitor log, and in the detail's count.
    await eventually(async () =>
      expect(await visitorRows().first().locator('.visit__ip').textContent()).toBe('193.0.14.129'),
    );
    expect(await visitorCount().textContent()).toBe(String(countBefore + 1));
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { stillTheSamePage?: boolean }).stillTheSamePage,
      ),
    ).toBe(true);

    await toTop();
    await screenshots(page, 'detail-stats');
    await pictureSection('stats-section');
  });

  it("says 'Reconnecting…' when the stream breaks, and is live again once it is back", async () => {
    // The stream is cut off (the page's next attempts fail at the network), then let through.
    await page.route(/\/api\/stats\/[^/]+\/live$/, (route) => route.abort('connectionfailed'));
    await page.reload();
    await eventually(
      async () => expect(await liveIndicator().textContent()).toBe('Reconnecting…'),
      { timeoutMs: 15_000 },
    );
    await expectAccessible(page, 'detail-stats-reconnecting');
    await pictureSection('stats-section-reconnecting');
    await page.unroute(/\/api\/stats\/[^/]+\/live$/);
    await eventually(async () => expect(await liveIndicator().textContent()).toBe('Live'), {
      timeoutMs: 15_000,
    });
  });

  it('survives a gateway restart: reconnecting while it is down, then live visits again', async () => {
    await eventually(async () => expect(await liveIndicator().textContent()).toBe('Live'), {
      timeoutMs: 15_000,
    });
    // Every text the indicator shows from now on, recorded in the page.
    await liveIndicator().evaluate((element) => {
      interface Watched {
        textContent: string | null;
      }
      const seen: string[] = [];
      (globalThis as unknown as { liveTexts: string[] }).liveTexts = seen;
      const Observer = (
        globalThis as unknown as {
          MutationObserver: new (callback: () => void) => {
            observe(target: unknown, options: Record<string, boolean>): void;
          };
        }
      ).MutationObserver;
      new Observer(() => seen.push((element as Watched).textContent ?? '')).observe(element, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    const before = Number(await total('Visits').textContent());
    const startedAt = Date.now();
    await stack.restart(stack.get('gateway'), 'SIGTERM');
    journal.push(`gateway restarted in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    await eventually(async () => expect(await liveIndicator().textContent()).toBe('Live'), {
      timeoutMs: 20_000,
    });
    const texts = await page.evaluate(
      () => (globalThis as unknown as { liveTexts: string[] }).liveTexts,
    );
    expect(texts).toContain('Reconnecting…');
    expect(texts.at(-1)).toBe('Live');

    await visit('8.8.8.8', CHROME_WINDOWS);
    await eventually(
      async () => expect(await total('Visits').textContent()).toBe(String(before + 1)),
      { timeoutMs: 10_000 },
    );
    // Counted on the server as well: a reload shows the same number.
    await page.reload();
    await eventually(async () =>
      expect(await total('Visits').textContent()).toBe(String(before + 1)),
    );
  });

  it("downloads every visit as CSV, 'Preparing…' meanwhile", async () => {
    const held = await holdNextRequest(page, /\/visits\.csv$/);
    const button = section().getByRole('button', { name: /Download CSV|Preparing…/ });
    await button.click();
    await held.arrived;
    expect(await button.textContent()).toBe('Preparing…');
    const download = page.waitForEvent('download');
    held.release();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`visits-${code}.csv`);
    const lines = (await downloaded(file)).toString('utf8').trim().split(/\r?\n/);
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines).toHaveLength(1 + 6);
    const ips = lines.slice(1).map((line) => line.split(',')[1]);
    expect(ips.sort()).toEqual([
      '1.1.1.1',
      '193.0.14.129',
      '8.8.8.8',
      '8.8.8.8',
      '8.8.8.8',
      '8.8.8.8',
    ]);
    await visible(section().getByRole('button', { name: 'Download CSV', exact: true }));
    const csvCall = apiCalls.find((call) => call.path === `/api/stats/${code}/visits.csv`);
    expect(csvCall?.requestedWith).toBe('XMLHttpRequest');
  });

  it('draws a QR code of the short link, downloadable as SVG and PNG', async () => {
    const shortLink = `${stack.url}/r/${code}`;
    const image = await visible(section().getByRole('img', { name: `QR code of ${shortLink}` }));
    expect(
      await image.evaluate((element) => (element as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);

    const svgDownload = page.waitForEvent('download');
    await section().getByRole('button', { name: 'Download SVG', exact: true }).click();
    const svgFile = await svgDownload;
    expect(svgFile.suggestedFilename()).toBe(`qr-${code}.svg`);
    const svg = (await downloaded(svgFile)).toString('utf8');
    // The same modules as uqr encodes the short link with, one unit square each.
    const { data } = encode(shortLink, { ecc: 'M', border: 4 });
    const dark = data.flat().filter(Boolean).length;
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/h1v1h-1z/g)).toHaveLength(dark);

    const pngDownload = page.waitForEvent('download');
    await section().getByRole('button', { name: 'Download PNG', exact: true }).click();
    const pngFile = await pngDownload;
    expect(pngFile.suggestedFilename()).toBe(`qr-${code}.png`);
    const png = await downloaded(pngFile);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
    // PNG's IHDR: width and height, whole pixels a module, at least 1024 (print size).
    expect(png.readUInt32BE(16)).toBe(data.length * Math.ceil(1024 / data.length));
  });

  it('shows a failed stats call in the section only: the spec page around it stands', async () => {
    await page.route(/\/api\/stats\/[^/]+\?range=/, (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"x"}' }),
    );
    await page.reload();
    const alert = await visible(section().getByRole('alert'));
    expect(await alert.innerText()).toContain('Stats could not be loaded: Server error');
    await visible(page.getByRole('heading', { level: 1 }));
    await visible(page.getByRole('button', { name: 'Delete', exact: true }));
    expect(await visitorRows().count()).toBeGreaterThan(0);
    await toTop();
    await screenshots(page, 'detail-stats-error');
    await page.unroute(/\/api\/stats\/[^/]+\?range=/);
    await section().getByRole('button', { name: 'Try again', exact: true }).click();
    await eventually(async () => expect(await total('Visits').textContent()).toBe('6'));
  });

  it('works by keyboard: the range switcher and the downloads, each with a visible focus ring', async () => {
    await page.reload();
    await visible(total('Visits'));
    const thirty = section().getByRole('button', { name: '30d', exact: true });
    await keyboardTo(page, thirty);
    const answer = page.waitForResponse(
      (response) => new URL(response.url()).search === '?range=30d',
    );
    await page.keyboard.press('Enter');
    expect((await answer).status()).toBe(200);
    await eventually(async () => expect(await thirty.getAttribute('aria-pressed')).toBe('true'));

    await keyboardTo(page, section().getByRole('button', { name: 'Download SVG', exact: true }));
    const svg = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    expect((await svg).suggestedFilename()).toBe(`qr-${code}.svg`);

    await keyboardTo(page, section().getByRole('button', { name: 'Download CSV', exact: true }));
    const csv = page.waitForEvent('download');
    await page.keyboard.press('Space');
    expect((await csv).suggestedFilename()).toBe(`visits-${code}.csv`);
  });

  it('sent every stats call but the live stream with X-Requested-With', () => {
    const statsCalls = apiCalls.filter((call) => call.path.startsWith('/api/stats/'));
    expect(statsCalls.some((call) => call.path === `/api/stats/${code}/live`)).toBe(true);
    expect(
      statsCalls.filter(
        (call) => !call.path.endsWith('/live') && call.requestedWith !== 'XMLHttpRequest',
      ),
    ).toEqual([]);
  });
});
