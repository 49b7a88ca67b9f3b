import { TARGET_URL_MESSAGES } from '@shortener/contracts';
import { screen, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { readCachedUser } from '../../../lib/storage';
import { aLink, aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';

const DAY = 86_400_000;
const link = aLink({ urlID: 'Ab3dE5g', originalUrl: 'https://example.com/old', visitCount: 4 });

function cacheUser() {
  signIn();
  localStorage.setItem('userData', JSON.stringify(aUser({ urls: [link] })));
  localStorage.setItem('visitors-Ab3dE5g', '[]');
}

/** The API calls a test's page made, besides the stats section's. */
function calls(fetchMock: ReturnType<typeof mockFetch>): string[] {
  return fetchMock.mock.calls
    .map(([input, init]) => {
      const body = typeof init?.body === 'string' ? ` ${init.body}` : '';
      return `${init?.method ?? 'GET'} ${input as string}${body}`;
    })
    .filter((call) => !call.includes('/api/stats/'));
}

describe('Edit on the detail page', () => {
  it('sends only what changed, then shows and caches the link as the server answered', async () => {
    const user = userEvent.setup();
    cacheUser();
    const edited = {
      ...link,
      originalUrl: 'https://example.org/new',
      expiresAt: Date.now() + 60 * DAY,
    };
    const fetchMock = mockFetch((url) =>
      url.startsWith('/api/links/')
        ? jsonResponse(200, edited)
        : jsonResponse(404, { message: 'x' }),
    );
    renderApp('/profile/Ab3dE5g');

    await user.click(screen.getByRole('button', { name: 'Edit' }));
    const form = screen.getByRole('form', { name: 'Edit link' });
    const destination = within(form).getByLabelText('Destination');
    await user.clear(destination);
    await user.type(destination, 'https://example.org/new');
    await user.click(within(form).getByRole('button', { name: '60 days from now' }));
    await user.click(within(form).getByRole('button', { name: 'Save' }));

    expect(await screen.findByRole('link', { name: /example\.org\/new/ })).toBeTruthy();
    expect(screen.queryByRole('form', { name: 'Edit link' })).toBeNull();
    expect(calls(fetchMock)).toContain(
      'PATCH /api/links/Ab3dE5g {"url":"https://example.org/new","days":60}',
    );
    expect(readCachedUser()?.urls).toEqual([edited]);
    // The file's first page load (the detail's chunks) and a URL typed key by key.
  }, 15_000);

  it("shows the server's refusal beside Save and changes nothing", async () => {
    const user = userEvent.setup();
    cacheUser();
    mockFetch((url) =>
      url.startsWith('/api/links/')
        ? jsonResponse(403, { message: TARGET_URL_MESSAGES.credentials })
        : jsonResponse(404, { message: 'x' }),
    );
    renderApp('/profile/Ab3dE5g');

    await user.click(screen.getByRole('button', { name: 'Edit' }));
    const form = screen.getByRole('form', { name: 'Edit link' });
    const destination = within(form).getByLabelText('Destination');
    await user.clear(destination);
    await user.type(destination, 'https://user:secret@example.org/file');
    await user.click(within(form).getByRole('button', { name: 'Save' }));

    expect((await within(form).findByRole('alert')).textContent).toBe(
      TARGET_URL_MESSAGES.credentials,
    );
    expect(readCachedUser()?.urls).toEqual([link]);
  });
});

describe('Save and Escape in the edit form (issue 37)', () => {
  const edited = { ...link, originalUrl: 'https://example.org/new' };

  async function saveNewDestination(user: ReturnType<typeof userEvent.setup>) {
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    const destination = within(screen.getByRole('form', { name: 'Edit link' })).getByLabelText(
      'Destination',
    );
    await user.clear(destination);
    await user.type(destination, 'https://example.org/new');
    await user.click(screen.getByRole('button', { name: 'Save' }));
  }

  it("says 'Saved.' politely once saved, with focus back on Edit, and clears it after a few seconds", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
      cacheUser();
      mockFetch((url) =>
        url.startsWith('/api/links/')
          ? jsonResponse(200, edited)
          : jsonResponse(404, { message: 'x' }),
      );
      renderApp('/profile/Ab3dE5g');
      await saveNewDestination(user);

      const status = await screen.findByText('Saved.');
      expect(status.closest('[role="status"]')).not.toBeNull();
      expect(screen.queryByRole('form', { name: 'Edit link' })).toBeNull();
      expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Edit' }));

      await vi.advanceTimersByTimeAsync(6_000);
      expect(screen.queryByText('Saved.')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("clears 'Saved.' when the form is opened again", async () => {
    const user = userEvent.setup();
    cacheUser();
    mockFetch((url) =>
      url.startsWith('/api/links/')
        ? jsonResponse(200, edited)
        : jsonResponse(404, { message: 'x' }),
    );
    renderApp('/profile/Ab3dE5g');
    await saveNewDestination(user);
    await screen.findByText('Saved.');
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    expect(screen.queryByText('Saved.')).toBeNull();
  });

  it('closes the form on Escape without saving, focus back on Edit', async () => {
    const user = userEvent.setup();
    cacheUser();
    const fetchMock = mockFetch(() => jsonResponse(404, { message: 'x' }));
    renderApp('/profile/Ab3dE5g');
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    const destination = within(screen.getByRole('form', { name: 'Edit link' })).getByLabelText(
      'Destination',
    );
    await user.clear(destination);
    await user.type(destination, 'https://example.org/new{Escape}');

    expect(screen.queryByRole('form', { name: 'Edit link' })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Edit' }));
    expect(calls(fetchMock).filter((call) => call.startsWith('PATCH'))).toEqual([]);
    expect(screen.queryByText('Saved.')).toBeNull();
    expect(screen.getByRole('link', { name: /example\.com\/old/ })).toBeTruthy();
  });
});

describe('Undo after a delete', () => {
  it('restores the link into the list and the cache', async () => {
    const user = userEvent.setup();
    cacheUser();
    const fetchMock = mockFetch((url) => {
      if (url.startsWith('/api/delete/')) return jsonResponse(200, { loggedIn: true });
      if (url.endsWith('/restore')) return jsonResponse(200, link);
      if (url === '/api/user') return jsonResponse(200, aUser({ urls: [] }));
      return jsonResponse(404, { message: 'x' });
    });
    renderApp('/profile');

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('No urls to display')).toBeTruthy();
    await user.click(await screen.findByRole('button', { name: 'Undo' }));

    expect(await screen.findByText('/r/Ab3dE5g', { exact: false })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull();
    expect(readCachedUser()?.urls).toEqual([link]);
    expect(calls(fetchMock)).toContain('POST /api/links/Ab3dE5g/restore');
  });

  it('shows a failed undo beside Undo', async () => {
    const user = userEvent.setup();
    cacheUser();
    mockFetch((url) => {
      if (url.startsWith('/api/delete/')) return jsonResponse(200, { loggedIn: true });
      if (url.endsWith('/restore')) return jsonResponse(404, { message: 'Url not found' });
      if (url === '/api/user') return jsonResponse(200, aUser({ urls: [] }));
      return jsonResponse(404, { message: 'x' });
    });
    renderApp('/profile');

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(await screen.findByRole('button', { name: 'Undo' }));

    const notice = screen.getByRole('status', { name: '' });
    expect((await within(notice).findByRole('alert')).textContent).toBe('Url not found');
  });
});
