import { screen, waitFor } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { aLink, aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';

describe('the profile pages when the server cannot be reached (issue 37)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("says 'Cannot reach the server' with Retry, and shows the list by itself once it is back", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    signIn();
    let down = true;
    const fetchMock = mockFetch(() =>
      down ? Promise.reject(new TypeError('Failed to fetch')) : jsonResponse(200, aUser()),
    );
    renderApp('/profile');
    expect((await screen.findByRole('alert')).textContent).toContain('Cannot reach the server');
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();

    down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    await waitFor(() =>
      expect(
        screen.getByRole('heading', { level: 1, name: `${aUser().fullName}'s URLs` }),
      ).toBeTruthy(),
    );
    expect(fetchMock.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('asks again at once on Retry', async () => {
    signIn();
    let down = true;
    mockFetch(() =>
      down ? Promise.reject(new TypeError('Failed to fetch')) : jsonResponse(200, aUser()),
    );
    renderApp('/profile');
    await screen.findByRole('button', { name: 'Retry' });
    down = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(
      await screen.findByRole('heading', { level: 1, name: `${aUser().fullName}'s URLs` }),
    ).toBeTruthy();
  });

  it("keeps 'Server error' with 'Try again' for an answer that is an error", async () => {
    signIn();
    mockFetch(() => jsonResponse(500, { message: 'boom' }));
    renderApp('/profile');
    expect((await screen.findByRole('alert')).textContent).toContain('Server error');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});

describe('a link looked up by its address when the server cannot be reached (issue 37)', () => {
  it("says 'Cannot reach the server', then shows the link by itself once it is back", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      signIn();
      localStorage.setItem('userData', JSON.stringify(aUser({ urls: [] })));
      let down = true;
      mockFetch((url) =>
        down
          ? Promise.reject(new TypeError('Failed to fetch'))
          : url.startsWith('/api/links?')
            ? jsonResponse(200, [aLink({ urlID: 'Old1234' })])
            : jsonResponse(404, { message: 'x' }),
      );
      renderApp('/profile/Old1234');
      await screen.findByText(/^Cannot reach the server/);
      down = false;
      await vi.advanceTimersByTimeAsync(5_000);
      await waitFor(() => expect(screen.queryByText(/^Cannot reach the server/)).toBeNull());
      await waitFor(() => expect(screen.getAllByText(/Old1234/).length).toBeGreaterThan(0));
    } finally {
      vi.useRealTimers();
    }
  });
});
