import { act, screen, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Format from '../../../lib/format';
import { aLink, aUser } from '../../../test/fixtures';
import { signIn } from '../../../test/http';

/**
 * The app loaded anew with formatRemaining counted (the test setup has loaded the real one):
 * every countdown drawn is one call, so the calls tell how many rows a second re-renders.
 */
async function appCountingCountdowns() {
  vi.resetModules();
  vi.doMock('../../../lib/format', async (actual) => {
    const real = await actual<typeof Format>();
    return { ...real, formatRemaining: vi.fn(real.formatRemaining) };
  });
  const format = await import('../../../lib/format');
  await (await import('../../../app/router')).preloadPages();
  const { renderApp } = await import('../../../test/render');
  return { renderApp, drawn: vi.mocked(format.formatRemaining) };
}

const DAY = 86_400_000;
/** A full first page, as userData caches it. */
const ROWS = 100;

/** IntersectionObserver as a browser has it, the test saying which elements are in view. */
class FakeIntersectionObserver {
  static all: FakeIntersectionObserver[] = [];
  readonly observed = new Set<Element>();
  constructor(private readonly callback: IntersectionObserverCallback) {
    FakeIntersectionObserver.all.push(this);
  }
  observe(element: Element) {
    this.observed.add(element);
  }
  unobserve(element: Element) {
    this.observed.delete(element);
  }
  disconnect() {
    this.observed.clear();
  }
  /** Reports each observed element that holds one of `shown` as in view, the others not. */
  static show(shown: HTMLElement[]) {
    for (const observer of FakeIntersectionObserver.all) {
      const entries = [...observer.observed].map(
        (target) =>
          ({
            target,
            isIntersecting: shown.some((element) => target.contains(element)),
          }) as IntersectionObserverEntry,
      );
      if (entries.length > 0) {
        observer.callback(entries, observer as unknown as IntersectionObserver);
      }
    }
  }
}

async function countdowns(): Promise<HTMLElement[]> {
  // The list is rendered in slices (a transition): once it is all there.
  const list = await screen.findByRole('list');
  await within(list).findByText('code099', { exact: false });
  return within(list)
    .getAllByRole('listitem')
    .map((item) => within(item).getByText('Expires In').nextElementSibling as HTMLElement);
}

describe('Profile: the countdowns of a long list', () => {
  beforeEach(() => {
    FakeIntersectionObserver.all = [];
    vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    vi.setSystemTime(new Date(2025, 0, 1));
  });

  afterEach(() => {
    vi.doUnmock('../../../lib/format');
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('re-renders only the rows in view each second, and a row coming into view is current', async () => {
    signIn();
    const urls = Array.from({ length: ROWS }, (_, index) =>
      aLink({
        urlID: `code${String(index).padStart(3, '0')}`,
        expiresAt: Date.now() + DAY + 10_000,
      }),
    );
    localStorage.setItem('userData', JSON.stringify(aUser({ urls })));
    const { renderApp, drawn } = await appCountingCountdowns();
    renderApp('/profile');
    const shown = await countdowns();
    expect(shown).toHaveLength(ROWS);
    expect(shown[0]?.textContent).toBe('1d 00h 00m 10s');

    // The first five rows on screen.
    void act(() => FakeIntersectionObserver.show(shown.slice(0, 5)));
    drawn.mockClear();
    void act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(drawn.mock.calls.length).toBe(5);
    expect(shown[0]?.textContent).toBe('1d 00h 00m 09s');
    expect(shown[99]?.textContent).toBe('1d 00h 00m 10s');

    // Scrolled to the end: that row is current at once, and the first ones stop.
    drawn.mockClear();
    void act(() => FakeIntersectionObserver.show(shown.slice(99)));
    expect(shown[99]?.textContent).toBe('1d 00h 00m 09s');
    void act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(shown[99]?.textContent).toBe('1d 00h 00m 08s');
    expect(shown[0]?.textContent).toBe('1d 00h 00m 09s');
    // Coming into view, then one tick: the rows that left it were not drawn again.
    expect(drawn.mock.calls.length).toBe(2);
  }, 30_000);
});
