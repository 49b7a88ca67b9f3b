import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Locator, type Page, type Route } from 'playwright-core';
import {
  REPO_ROOT,
  startStack,
  type OAuth2Mock,
  type Stack,
  type StackOptions,
} from '@shortener/testkit';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Debian's Chromium, headless. Never a downloaded browser: without the system one the
 * journeys stop at once and say how to get it.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium was not found at ${CHROMIUM_PATH}. The browser journeys drive the system ` +
        'Chromium and never download one: install it with `apt-get install chromium`.',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // No sandbox (containers run as root), and nothing that would reach for the internet.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      // The landing page's name, for Chromium only: the links service refuses loopback
      // targets, and a name nobody else resolves keeps the page on this machine.
      `--host-resolver-rules=MAP ${LANDING_HOST} 127.0.0.1`,
      '--no-first-run',
      '--disable-sync',
    ],
    timeout: 30_000,
  });
}

/** The landing page's host name (RFC 2606 reserves .test), mapped to 127.0.0.1 in Chromium. */
export const LANDING_HOST = 'landing.test';

export interface LandingServer {
  /** http://landing.test:<port>, reachable from the browser only */
  origin: string;
  /** The title every page of it carries, to recognise where a redirect ended. */
  title: string;
  stop(): Promise<void>;
}

/**
 * The target of the short links. There is no internet here, and the links service refuses
 * loopback addresses and the product's own hosts, so the target is a page on a local port
 * under a name only the test browser resolves (to 127.0.0.1).
 */
export async function startLandingServer(title = 'E2E landing page'): Promise<LandingServer> {
  const server: Server = createServer((request, response) => {
    if (request.url?.startsWith('/landing')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>${title}</title><h1>${title}</h1>`);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${LANDING_HOST}:${port}`,
    title,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Retries an assertion until it passes or `timeoutMs` runs out, then throws its last error. */
export async function eventually<T>(
  assertion: () => Promise<T> | T,
  { timeoutMs = 10_000, intervalMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await sleep(intervalMs);
  }
}

/** Waits until the locator's (single) element is visible: the text or control is on screen. */
export async function visible(locator: Locator, timeout = 15_000): Promise<Locator> {
  await locator.waitFor({ state: 'visible', timeout });
  return locator;
}

/** The <dd> of a definition list that follows the <dt> reading exactly `term`. */
export function definition(scope: Page | Locator, term: string): Locator {
  return scope.locator(`xpath=.//dt[normalize-space(.)="${term}"]/following-sibling::dd[1]`);
}

export interface HeldRequest {
  /** Resolves once the page has sent the request. */
  arrived: Promise<void>;
  /** Lets the request through to the server. */
  release(): void;
}

/**
 * Holds the next request matching `pattern` until released, so a transient state
 * ('Loading..', 'Loading....') can be seen for certain instead of raced.
 */
export async function holdNextRequest(page: Page, pattern: RegExp): Promise<HeldRequest> {
  let markArrived = (): void => undefined;
  let release = (): void => undefined;
  const arrived = new Promise<void>((resolve) => (markArrived = resolve));
  const gate = new Promise<void>((resolve) => {
    release = resolve;
    // Never held for longer than a test may wait, even if a failing test never releases it.
    setTimeout(resolve, 25_000).unref();
  });
  await page.route(
    pattern,
    async (route: Route) => {
      markArrived();
      await gate;
      await route.continue();
    },
    { times: 1 },
  );
  return { arrived: withTimeout(arrived, 20_000, `a request to ${String(pattern)}`), release };
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const controller = new AbortController();
  try {
    return await Promise.race([
      promise,
      sleep(ms, undefined, { signal: controller.signal }).then(() => {
        throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      }),
    ]);
  } finally {
    controller.abort();
  }
}

/** The git-ignored folder of test-run output at the repository root. */
export const ARTIFACTS = path.join(REPO_ROOT, 'artifacts');
export const SCREENSHOT_DIR = path.join(ARTIFACTS, 'screenshots');
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

/** The axe-core impacts that fail a journey: what blocks or badly hinders some users. */
const FAILING_IMPACTS: ReadonlySet<string> = new Set(['serious', 'critical']);

/**
 * Runs axe-core (every rule it has, best practices included) on the page as it is now and
 * fails on any serious or critical violation, naming the screen, each rule and the elements
 * it found, so that the message alone says what to fix. Moderate and minor findings are
 * not failures.
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const failing = violations.filter(({ impact }) => FAILING_IMPACTS.has(impact ?? ''));
  if (failing.length === 0) return;
  const width = page.viewportSize()?.width ?? 0;
  const lines = failing.flatMap((violation) => [
    `${violation.id} (${violation.impact ?? ''}): ${violation.help}`,
    ...violation.nodes.map(
      (node) => `    ${node.target.map(String).join(' ')}: ${node.failureSummary ?? ''}`,
    ),
  ]);
  throw new Error(
    `axe-core found ${failing.length} serious or critical violation(s) on ${label} ` +
      `at ${width} px:\n${lines.join('\n')}`,
  );
}

/**
 * Screenshots the current screen at desktop and phone width as
 * artifacts/screenshots/<screen>-<width>.png, then returns to desktop width. At each width
 * the page must fit the window (a screen that scrolls sideways on a phone is broken) and
 * pass axe-core without a serious or critical violation (expectAccessible).
 */
export async function screenshots(page: Page, screen: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await page.screenshot({
      path: path.join(SCREENSHOT_DIR, `${screen}-${size.width}.png`),
      fullPage: true,
      animations: 'disabled',
      // A blinking caret would make two runs' pictures differ for nothing.
      caret: 'hide',
    });
    const { clientWidth, scrollWidth } = await page.evaluate(() => {
      const root = (globalThis as unknown as PageGlobals).document.documentElement;
      return { clientWidth: root.clientWidth, scrollWidth: root.scrollWidth };
    });
    expect({ screen, width: size.width, scrollWidth }).toEqual({
      screen,
      width: size.width,
      scrollWidth: clientWidth,
    });
    // After the picture, so that a failing screen is pictured as it failed.
    await expectAccessible(page, screen);
  }
  await page.setViewportSize(DESKTOP);
}

/** How the focused element shows its focus: the computed outline and box-shadow. */
export interface FocusIndicator {
  /** The focused element, e.g. 'button "Delete"', for failure messages. */
  element: string;
  outline: string;
  boxShadow: string;
  /** An outline or a box-shadow ring with a non-zero width and a colour one can see. */
  visible: boolean;
  /**
   * Not a Tab stop (tabindex -1): the page put the focus there itself, as the app does with
   * <main> after a navigation, so a key press and that move can come in either order.
   */
  notTabStop: boolean;
}

/** Measures the focus indicator of the page's focused element (document.activeElement). */
export function focusIndicator(page: Page): Promise<FocusIndicator> {
  return page.evaluate(() => {
    const globals = globalThis as unknown as FocusGlobals;
    const element = globals.document.activeElement;
    const style = globals.getComputedStyle(element);
    const name =
      element.getAttribute('aria-label') ?? (element.textContent ?? '').trim().slice(0, 40);
    const seen = (color: string): boolean =>
      color !== 'transparent' && !/^rgba\(.*,\s*0\)$/.test(color);
    const outlined =
      style.outlineStyle !== 'none' &&
      Number.parseFloat(style.outlineWidth) > 0 &&
      seen(style.outlineColor);
    // A ring drawn as a box-shadow: some shadow with a spread (its 4th length) above zero.
    const ringed =
      style.boxShadow !== 'none' &&
      style.boxShadow.split(/,(?![^(]*\))/).some((shadow) => {
        const lengths = shadow.match(/-?[\d.]+px/g) ?? [];
        const color = /rgba?\([^)]*\)/.exec(shadow)?.[0] ?? '';
        return !shadow.includes('inset') && Number.parseFloat(lengths[3] ?? '0') > 0 && seen(color);
      });
    return {
      element: `${element.tagName.toLowerCase()} ${JSON.stringify(name)}`,
      outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
      boxShadow: style.boxShadow,
      visible: outlined || ringed,
      notTabStop: element.getAttribute('tabindex') === '-1',
    };
  });
}

/**
 * Presses `key` (Tab, or Shift+Tab to go back) until `target` has the focus, as a keyboard
 * user would, and checks the focus ring of every element passed on the way: each must show
 * a visible outline or ring. Fails after `max` presses without reaching the target.
 */
export async function keyboardTo(
  page: Page,
  target: Locator,
  { key = 'Tab', max = 40 }: { key?: 'Tab' | 'Shift+Tab'; max?: number } = {},
): Promise<void> {
  await target.waitFor({ state: 'visible' });
  const passed: string[] = [];
  for (let presses = 0; presses < max; presses++) {
    await page.keyboard.press(key);
    const focused = await focusIndicator(page);
    // Past the last control the focus leaves the document for the browser's own UI.
    if (focused.element.startsWith('body ') || focused.notTabStop) continue;
    passed.push(focused.element);
    expect(focused).toEqual({ ...focused, visible: true });
    const reached = await target.evaluate(
      (element) => element === (globalThis as unknown as FocusGlobals).document.activeElement,
    );
    if (reached) return;
  }
  throw new Error(`${max} presses of ${key} never reached the target; passed ${passed.join(', ')}`);
}

interface FocusElement {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
}

interface FocusGlobals {
  document: { activeElement: FocusElement };
  getComputedStyle(element: FocusElement): {
    outlineStyle: string;
    outlineWidth: string;
    outlineColor: string;
    boxShadow: string;
  };
}

/**
 * The few browser globals the journeys read inside the page. The tests are typechecked
 * without the DOM library (they run in Node), so these are described here.
 */
export interface PageGlobals {
  document: { documentElement: { clientWidth: number; scrollWidth: number } };
  navigator: { clipboard: { readText(): Promise<string> } };
}

/** What the page's clipboard holds (the context must have clipboard-read for the origin). */
export function readClipboard(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText());
}

/** The localStorage of one origin, from the context's storage state. */
export async function localStorageOf(page: Page, origin: string): Promise<Map<string, string>> {
  const state = await page.context().storageState();
  const entries = state.origins.find((entry) => entry.origin === origin)?.localStorage ?? [];
  return new Map(entries.map(({ name, value }) => [name, value]));
}

/** Out of reach of any journey (see startJourneyStack). */
const UNREACHABLE_LIMIT = String(1_000_000_000);

/**
 * The whole stack as the journeys use it, behind the nginx edge as `npm run stack` runs it,
 * signing in through the given mock provider. The rate limits are not under test and their
 * Redis counters are shared: every suite on this machine signs in and shortens from
 * 127.0.0.1 (over a thousand sign-ins a minute were seen while others ran), so they are set
 * out of reach. `serviceEnv` adds a service's own settings (the links service's DNS_SERVERS).
 * `healthTimeoutMs`: how long a service may take to start (a busy machine's).
 */
export function startJourneyStack(
  provider: OAuth2Mock,
  { serviceEnv = {}, healthTimeoutMs }: Pick<StackOptions, 'serviceEnv' | 'healthTimeoutMs'> = {},
): Promise<Stack> {
  return startStack({
    edge: true,
    env: {
      SIGN_IN_RATE_LIMIT: UNREACHABLE_LIMIT,
      API_RATE_LIMIT: UNREACHABLE_LIMIT,
      SHORTEN_RATE_LIMIT_ANONYMOUS: UNREACHABLE_LIMIT,
      SHORTEN_RATE_LIMIT_SIGNED_IN: UNREACHABLE_LIMIT,
    },
    serviceEnv: { ...serviceEnv, auth: provider.env },
    ...(healthTimeoutMs === undefined ? {} : { healthTimeoutMs }),
  });
}
