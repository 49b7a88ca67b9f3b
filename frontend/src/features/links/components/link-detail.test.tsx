import { MESSAGES } from '@shortener/contracts';
import { screen, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { formatDate, formatTime } from '../../../lib/format';
import { aLink, aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';
import { wholeText } from '../../../test/text';

const link = aLink({
  urlID: 'Ab3dE5g',
  originalUrl: 'https://example.com/articles/42?utm_source=news',
  createdAt: new Date(2025, 2, 4, 5, 6, 7).toISOString(),
  visitCount: 12,
});

function cacheUser() {
  signIn();
  localStorage.setItem('userData', JSON.stringify(aUser({ urls: [link] })));
}

function statValue(label: string): string | null | undefined {
  return screen.getByText(label).nextElementSibling?.textContent;
}

describe('Detail of one link', () => {
  it('shows the original URL, its short link and its numbers', () => {
    cacheUser();
    localStorage.setItem('visitors-Ab3dE5g', '[]');
    renderApp('/profile/Ab3dE5g');

    const original = within(screen.getByRole('heading', { level: 1 })).getByRole('link');
    expect(original.getAttribute('href')).toBe(link.originalUrl);
    expect(original.getAttribute('target')).toBe('_blank');
    expect(original.getAttribute('rel')).toBe('noopener noreferrer');
    expect(original.querySelector('.detail__query')?.textContent).toBe('?utm_source=news');

    expect(screen.getByText(wholeText(`${window.location.origin}/r/Ab3dE5g`))).toBeTruthy();
    expect(statValue('Created at')).toBe(
      `${formatDate(link.createdAt)} ${formatTime(link.createdAt)}`,
    );
    expect(statValue('Created at')).toBe('04/03/2025 05:06:07');
    expect(statValue('Expires in')).toMatch(/^\d+d \d\dh \d\dm \d\ds$/);
    expect(statValue('Visitors')).toBe('12');
  });

  it('copies the short link', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    cacheUser();
    localStorage.setItem('visitors-Ab3dE5g', '[]');
    renderApp('/profile/Ab3dE5g');

    await user.click(screen.getByRole('button', { name: 'Copy short link' }));

    expect(writeText).toHaveBeenCalledWith(`${window.location.origin}/r/Ab3dE5g`);
    expect(await screen.findByText('Copied')).toBeTruthy();
  });

  it("says 'Url not found' for an id that is neither loaded nor among the user's links", async () => {
    cacheUser();
    const fetchMock = mockFetch((url) =>
      // The server's search for the code finds a link whose destination contains it only.
      url === '/api/links?q=zzzzzzz'
        ? jsonResponse(200, [aLink({ urlID: 'other12', originalUrl: 'https://zzzzzzz.example' })])
        : jsonResponse(500, {}),
    );
    renderApp('/profile/zzzzzzz');
    expect(screen.getByText('Loading....')).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'Url not found' })).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('opens a link that is not among those loaded (an older one), asking the server for it', async () => {
    cacheUser();
    const older = aLink({ urlID: 'old1234', originalUrl: 'https://older.example/page' });
    mockFetch((url) =>
      url === '/api/links?q=old1234' ? jsonResponse(200, [older]) : jsonResponse(404, {}),
    );
    renderApp('/profile/old1234');
    expect(await screen.findByRole('heading', { name: /older\.example/ })).toBeTruthy();
  });

  it('goes back to the list', async () => {
    const user = userEvent.setup();
    cacheUser();
    localStorage.setItem('visitors-Ab3dE5g', '[]');
    const { router } = renderApp('/profile/Ab3dE5g');

    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(router.location.pathname).toBe('/profile');
  });

  it('deletes the link and goes back to the updated list', async () => {
    const user = userEvent.setup();
    cacheUser();
    localStorage.setItem('visitors-Ab3dE5g', '[]');
    mockFetch(() => jsonResponse(200, { loggedIn: true }));
    const { router } = renderApp('/profile/Ab3dE5g');

    await user.click(screen.getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText('No urls to display')).toBeTruthy();
    expect(router.location.pathname).toBe('/profile');
    expect(localStorage.getItem('visitors-Ab3dE5g')).toBeNull();
    expect(localStorage.getItem('userData')).not.toContain('Ab3dE5g');
  });

  it("shows 'Cannot reach the server' when the delete request gets no answer (issue 37)", async () => {
    const user = userEvent.setup();
    cacheUser();
    localStorage.setItem('visitors-Ab3dE5g', '[]');
    mockFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    const { router } = renderApp('/profile/Ab3dE5g');

    await user.click(screen.getByRole('button', { name: 'Delete' }));

    expect((await screen.findAllByRole('alert')).map((alert) => alert.textContent)).toContain(
      'Cannot reach the server',
    );
    expect(router.location.pathname).toBe('/profile/Ab3dE5g');
  });

  it("shows 'Unexpected error occurred' when the delete's answer cannot be read", async () => {
    const user = userEvent.setup();
    cacheUser();
    localStorage.setItem('visitors-Ab3dE5g', '[]');
    mockFetch((url) =>
      url.startsWith('/api/delete/')
        ? new Response('<html>', { status: 200 })
        : Promise.reject(new TypeError('Failed to fetch')),
    );
    const { router } = renderApp('/profile/Ab3dE5g');

    await user.click(screen.getByRole('button', { name: 'Delete' }));

    // The Stats section, loaded beside it, may show an alert of its own (its call fails too).
    expect((await screen.findAllByRole('alert')).map((alert) => alert.textContent)).toContain(
      MESSAGES.unexpected,
    );
    expect(router.location.pathname).toBe('/profile/Ab3dE5g');
  });
});
