import { MESSAGES } from '@shortener/contracts';
import { act, screen, waitFor, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { aLink, aUser, aVisit } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';
import { wholeText } from '../../../test/text';

const DAY = 86_400_000;

function cacheUser(user = aUser()) {
  signIn();
  localStorage.setItem('userData', JSON.stringify(user));
  return user;
}

function items() {
  return within(screen.getByRole('list')).getAllByRole('listitem');
}

describe('Profile: the list of links', () => {
  it("shows '{fullName}'s URLs' and each live link with position, URL, visitCount and Expires In", () => {
    cacheUser(
      aUser({
        urls: [
          aLink({ urlID: 'first12', originalUrl: 'https://one.example', visitCount: 5 }),
          aLink({
            urlID: 'gone123',
            originalUrl: 'https://expired.example',
            expiresAt: Date.now() - 1,
          }),
          aLink({ urlID: 'second1', originalUrl: 'https://two.example', visitCount: 0 }),
        ],
      }),
    );
    const fetchMock = mockFetch(() => jsonResponse(500, {}));
    renderApp('/profile');

    expect(screen.getByRole('heading', { name: "Ada Lovelace's URLs" })).toBeTruthy();
    expect(items()).toHaveLength(2);
    const [first, second] = items();
    expect(first?.textContent).toContain('1');
    expect(first?.textContent).toContain('https://one.example');
    expect(within(first as HTMLElement).getByText('visitCount').nextSibling?.textContent).toBe('5');
    expect(within(first as HTMLElement).getByText('Expires In').nextSibling?.textContent).toMatch(
      /^\d+d \d\dh \d\dm \d\ds$/,
    );
    expect(second?.textContent).toContain('2');
    expect(second?.textContent).toContain('https://two.example');
    expect(screen.queryByText(wholeText('https://expired.example/'))).toBeNull();
    // Cookie and cached userData: no request needed.
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("copies each row's short link with its Copy button, the short link readable on the row, without opening it", async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    cacheUser(
      aUser({
        urls: [
          aLink({ urlID: 'first12', originalUrl: 'https://one.example' }),
          aLink({ urlID: 'second1', originalUrl: 'https://two.example' }),
        ],
      }),
    );
    const { router } = renderApp('/profile');
    const [, second] = items();
    const row = within(second as HTMLElement);
    expect(row.getByText(`${window.location.host}/r/second1`)).toBeTruthy();

    const copy = row.getByRole('button', { name: 'Copy short link' });
    await user.click(copy);
    expect(writeText).toHaveBeenCalledWith(`${window.location.origin}/r/second1`);
    expect(copy.textContent).toBe('Copied');
    expect(router.location.pathname).toBe('/profile');
    expect(
      within(items()[0] as HTMLElement).getByRole('button', { name: 'Copy short link' })
        .textContent,
    ).toBe('Copy');
  });

  it('counts down every second', () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    try {
      vi.setSystemTime(new Date(2025, 0, 1));
      cacheUser(aUser({ urls: [aLink({ expiresAt: Date.now() + DAY + 2000 })] }));
      renderApp('/profile');
      expect(screen.getByText('1d 00h 00m 02s')).toBeTruthy();
      void act(() => {
        vi.advanceTimersByTime(1000);
      });
      expect(screen.getByText('1d 00h 00m 01s')).toBeTruthy();
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows 'No urls to display' with a way back home when there are none", async () => {
    const user = userEvent.setup();
    cacheUser(aUser({ urls: [aLink({ expiresAt: Date.now() - 1 })] }));
    const { router } = renderApp('/profile');

    expect(screen.getByText('No urls to display')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Shorten a URL' }));
    expect(router.location.pathname).toBe('/');
  });

  it("fetches userData when none is cached, showing 'Loading....' meanwhile", async () => {
    signIn();
    const user = aUser();
    const fetchMock = mockFetch(() => jsonResponse(200, user));
    renderApp('/profile');

    expect(screen.getByText('Loading....')).toBeTruthy();
    expect(await screen.findByRole('heading', { name: "Ada Lovelace's URLs" })).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(JSON.parse(localStorage.getItem('userData') ?? 'null')).toEqual(user);
  });

  it("shows 'Server error' with a retry when userData cannot be fetched", async () => {
    signIn();
    mockFetch(() => jsonResponse(503, { message: 'Upstream down' }));
    renderApp('/profile');
    expect((await screen.findByRole('alert')).textContent).toContain(MESSAGES.serverError);
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('refreshes from the server on Refresh', async () => {
    const user = userEvent.setup();
    cacheUser();
    const fresh = aUser({
      urls: [aLink({ urlID: 'fresh12', originalUrl: 'https://fresh.example' })],
    });
    const fetchMock = mockFetch(() => jsonResponse(200, fresh));
    renderApp('/profile');

    await user.click(screen.getByRole('button', { name: 'Refresh' }));

    // Shown normalised, as the redirect follows it.
    expect(await screen.findByText(wholeText('https://fresh.example/'))).toBeTruthy();
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/user');
    expect(localStorage.getItem('userData')).toContain('fresh12');
  });

  it('returns to the sign-in prompt, caches cleared, when a refresh answers 401', async () => {
    const user = userEvent.setup();
    cacheUser();
    localStorage.setItem('visitors-Ab3dE5g', JSON.stringify([aVisit('v1')]));
    mockFetch(() =>
      jsonResponse(401, { message: MESSAGES.unauthorized, callBack: '/login?from=%2Fprofile' }),
    );
    renderApp('/profile');

    await user.click(screen.getByRole('button', { name: 'Refresh' }));

    expect(await screen.findByText('You must login first')).toBeTruthy();
    expect(localStorage.length).toBe(0);
  });

  it('opens the detail page from the item or its Details button', async () => {
    const user = userEvent.setup();
    cacheUser();
    mockFetch(() => jsonResponse(200, []));
    const { router } = renderApp('/profile');

    await user.click(
      screen.getByText(wholeText('https://example.com/articles/42?utm_source=news')),
    );
    expect(router.location.pathname).toBe('/profile/Ab3dE5g');

    await act(() => router.navigate('/profile'));
    await user.click(screen.getByRole('button', { name: 'Details' }));
    expect(router.location.pathname).toBe('/profile/Ab3dE5g');
  });

  it('deletes with the trash button: gone from the list, cached userData and cached visitors', async () => {
    const user = userEvent.setup();
    cacheUser(aUser({ urls: [aLink({ urlID: 'keep123' }), aLink({ urlID: 'drop123' })] }));
    localStorage.setItem('visitors-drop123', JSON.stringify([aVisit('v1')]));
    const fetchMock = mockFetch((url) =>
      url === '/api/user'
        ? jsonResponse(200, aUser({ urls: [aLink({ urlID: 'keep123' })] }))
        : jsonResponse(200, { loggedIn: true }),
    );
    const { router } = renderApp('/profile');

    const [, second] = items();
    await user.click(within(second as HTMLElement).getByRole('button', { name: 'Delete' }));

    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/delete/drop123');
    expect(items()).toHaveLength(1);
    // SPEC section 4: after delete the list is reloaded from the server.
    await waitFor(() => expect(fetchMock.mock.calls[1]?.[0]).toBe('/api/user'));
    expect(items()).toHaveLength(1);
    expect(localStorage.getItem('userData')).not.toContain('drop123');
    expect(localStorage.getItem('visitors-drop123')).toBeNull();
    expect(router.location.pathname).toBe('/profile');
  });

  it("shows the server's message when a delete is refused", async () => {
    const user = userEvent.setup();
    cacheUser();
    mockFetch(() => jsonResponse(404, { message: 'Link not found' }));
    renderApp('/profile');

    await user.click(screen.getByRole('button', { name: 'Delete' }));

    expect((await screen.findByRole('alert')).textContent).toBe('Link not found');
    expect(items()).toHaveLength(1);
  });

  it("signs out with a same-origin POST /logout: 'Sign out' is a form's button, not a link", () => {
    cacheUser();
    mockFetch(() => jsonResponse(500, {}));
    renderApp('/profile');

    const button = screen.getByRole('button', { name: 'Sign out' });
    expect(button.getAttribute('type')).toBe('submit');
    const form = button.closest('form');
    expect(form?.getAttribute('method')).toBe('post');
    expect(form?.getAttribute('action')).toBe('/logout');
    expect(screen.queryByRole('link', { name: 'Sign out' })).toBeNull();
    expect(document.querySelector('a[href="/logout"]')).toBeNull();
  });

  describe('with more links than a page', () => {
    const page = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) =>
        aLink({
          urlID: `p${String(from + i).padStart(6, '0')}`,
          originalUrl: `https://site.example/${from + i}`,
        }),
      );

    it("loads the next pages with 'Load more', positions continuing, until none is left", async () => {
      const user = userEvent.setup();
      signIn();
      const fetchMock = mockFetch((url) => {
        if (url === '/api/user') {
          return jsonResponse(200, aUser({ urls: page(1, 3) }), { 'X-Next-Cursor': 'after-3' });
        }
        if (url === '/api/links?cursor=after-3') {
          return jsonResponse(200, page(4, 2), { 'X-Next-Cursor': 'after-5' });
        }
        if (url === '/api/links?cursor=after-5') return jsonResponse(200, page(6, 1));
        return jsonResponse(500, {});
      });
      renderApp('/profile');
      expect(await screen.findByText(wholeText('https://site.example/3'))).toBeTruthy();
      expect(items()).toHaveLength(3);

      await user.click(screen.getByRole('button', { name: 'Load more' }));
      expect(await screen.findByText(wholeText('https://site.example/5'))).toBeTruthy();
      expect(items()).toHaveLength(5);
      expect(items()[3]?.textContent).toContain('4');

      await user.click(screen.getByRole('button', { name: 'Load more' }));
      expect(await screen.findByText(wholeText('https://site.example/6'))).toBeTruthy();
      expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
      // Only the first page is cached: the pages after it stay in memory.
      expect(localStorage.getItem('userData')).not.toContain('p000004');
      expect(localStorage.getItem('userData')).toContain('after-3');
      expect(fetchMock).toHaveBeenCalledTimes(3);
    });

    it('says how many links there are in all (X-Total-Count), and one fewer after a delete', async () => {
      const user = userEvent.setup();
      signIn();
      let deleted = false;
      mockFetch((url, init) => {
        if (url === '/api/user') {
          const urls = page(1, 3).filter((link) => !deleted || link.urlID !== 'p000002');
          return jsonResponse(200, aUser({ urls }), {
            'X-Next-Cursor': 'after-3',
            'X-Total-Count': deleted ? '301' : '302',
          });
        }
        if (init.method === 'POST' && url === '/api/delete/p000002') {
          deleted = true;
          return jsonResponse(200, { loggedIn: true });
        }
        return jsonResponse(500, {});
      });
      renderApp('/profile');
      expect(await screen.findByText('302 links')).toBeTruthy();
      // Cached with userData: the same count on the next visit without a request.
      expect(JSON.parse(localStorage.getItem('userData') ?? '{}')).toMatchObject({ total: 302 });

      await user.click(within(items()[1] as HTMLElement).getByRole('button', { name: 'Delete' }));
      expect(await screen.findByText('301 links')).toBeTruthy();
      expect(JSON.parse(localStorage.getItem('userData') ?? '{}')).toMatchObject({ total: 301 });
    });

    it('lists the soonest to expire or the most visited first from the server, page by page, and newest first again', async () => {
      const user = userEvent.setup();
      cacheUser(aUser({ urls: page(1, 2) }));
      const fetchMock = mockFetch((url) => {
        if (url === '/api/links?sort=expiring') {
          return jsonResponse(200, page(90, 1), {
            'X-Next-Cursor': 'soon-2',
            'X-Total-Count': '2',
          });
        }
        if (url === '/api/links?cursor=soon-2&sort=expiring') {
          return jsonResponse(200, page(91, 1), { 'X-Total-Count': '2' });
        }
        if (url === '/api/links?sort=visits') {
          return jsonResponse(200, page(95, 1), { 'X-Total-Count': '2' });
        }
        return jsonResponse(500, {});
      });
      renderApp('/profile');
      expect(items()).toHaveLength(2);

      await user.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), 'Expiring soon');
      expect(await screen.findByText(wholeText('https://site.example/90'))).toBeTruthy();
      expect(items()).toHaveLength(1);
      expect(screen.getByText('2 links')).toBeTruthy();
      await user.click(screen.getByRole('button', { name: 'Load more' }));
      expect(await screen.findByText(wholeText('https://site.example/91'))).toBeTruthy();
      expect(items()).toHaveLength(2);
      expect(fetchMock.mock.calls.map(([url]) => url)).toEqual([
        '/api/links?sort=expiring',
        '/api/links?cursor=soon-2&sort=expiring',
      ]);

      await user.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), 'Most visited');
      expect(await screen.findByText(wholeText('https://site.example/95'))).toBeTruthy();
      expect(fetchMock).toHaveBeenLastCalledWith('/api/links?sort=visits', expect.anything());

      // Newest first is the cached first page again: nothing more to ask.
      await user.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), 'Newest');
      expect(await screen.findByText(wholeText('https://site.example/1'))).toBeTruthy();
      expect(fetchMock).toHaveBeenCalledTimes(3);
    });

    it('searches once typing pauses, lists what matches with its own pages, and goes back when cleared', async () => {
      const user = userEvent.setup();
      cacheUser(aUser({ urls: page(1, 2) }));
      const fetchMock = mockFetch((url) => {
        if (url === '/api/links?q=needle') {
          return jsonResponse(200, page(50, 1), { 'X-Next-Cursor': 'needle-2' });
        }
        if (url === '/api/links?cursor=needle-2&q=needle') return jsonResponse(200, page(60, 1));
        if (url.startsWith('/api/links?q=')) return jsonResponse(200, []);
        return jsonResponse(500, {});
      });
      renderApp('/profile');

      await user.type(screen.getByRole('searchbox', { name: 'Search your links' }), 'needle');
      expect(await screen.findByText(wholeText('https://site.example/50'))).toBeTruthy();
      // One search for what was typed, not one per letter.
      expect(fetchMock.mock.calls.map(([url]) => url)).toEqual(['/api/links?q=needle']);
      expect(items()).toHaveLength(1);

      await user.click(screen.getByRole('button', { name: 'Load more' }));
      expect(await screen.findByText(wholeText('https://site.example/60'))).toBeTruthy();
      expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();

      await user.type(screen.getByRole('searchbox', { name: 'Search your links' }), 'zz');
      expect(await screen.findByText('No links match “needlezz”')).toBeTruthy();

      await user.clear(screen.getByRole('searchbox', { name: 'Search your links' }));
      expect(await screen.findByText(wholeText('https://site.example/2'))).toBeTruthy();
      expect(items()).toHaveLength(2);
    });
  });
});
