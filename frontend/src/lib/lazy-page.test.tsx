import { render, screen } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyPage } from './lazy-page';

/** A page whose chunk cannot be fetched until `up` is set: as import() fails offline. */
function offlinePage() {
  const state = { up: false, loads: 0 };
  const Page = lazyPage(() => {
    state.loads += 1;
    return state.up
      ? Promise.resolve(() => <h1>The page</h1>)
      : Promise.reject(new TypeError('Failed to fetch dynamically imported module'));
  });
  return { state, Page };
}

function show(Page: ReturnType<typeof lazyPage>) {
  return render(
    <Suspense fallback={<p>Loading....</p>}>
      <Page />
    </Suspense>,
  );
}

describe('a page whose chunk cannot be fetched (issue 37)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("says 'Cannot reach the server' with Retry, and shows the page on Retry once it comes", async () => {
    const { state, Page } = offlinePage();
    show(Page);
    expect(await screen.findByText(/^Cannot reach the server/)).toBeTruthy();
    expect(screen.queryByText('Something went wrong.')).toBeNull();

    state.up = true;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('heading', { name: 'The page' })).toBeTruthy();
  });

  it('asks again by itself every 5 s and when the browser is back online', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { state, Page } = offlinePage();
    show(Page);
    await screen.findByText(/^Cannot reach the server/);
    const before = state.loads;
    // The retries start once the message is on screen (an effect, run after it is painted).
    await vi.advanceTimersByTimeAsync(5_000);
    await vi.waitFor(() => expect(state.loads).toBe(before + 1));

    window.dispatchEvent(new Event('online'));
    await vi.waitFor(() => expect(state.loads).toBe(before + 2));

    state.up = true;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await screen.findByRole('heading', { name: 'The page' })).toBeTruthy();
    expect(screen.queryByText(/^Cannot reach the server/)).toBeNull();
  });

  it('asks for a stylesheet that failed again before the page is shown', async () => {
    // Vite adds a page's stylesheet beside its chunk and never asks for it again itself.
    const failed = document.createElement('link');
    failed.rel = 'stylesheet';
    failed.href = '/assets/page-x.css';
    document.head.append(failed);
    const { state, Page } = offlinePage();
    show(Page);
    await screen.findByText(/^Cannot reach the server/);

    state.up = true;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    const asked = document.head.querySelector<HTMLLinkElement>('link[href="/assets/page-x.css"]');
    expect(asked).not.toBe(failed);
    expect(asked).not.toBeNull();
    asked?.dispatchEvent(new Event('load'));
    expect(await screen.findByRole('heading', { name: 'The page' })).toBeTruthy();
    asked?.remove();
  });
});
