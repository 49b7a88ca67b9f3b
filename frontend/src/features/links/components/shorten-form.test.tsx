import { ALIAS_MESSAGES, MESSAGES } from '@shortener/contracts';
import { screen, waitFor } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderWithSession } from '../../../test/render';
import { ShortenForm } from './shorten-form';

const SHORT_LINK = `${window.location.origin}/r/Ab3dE5g`;

function setup({ clipboard = () => Promise.resolve() }: { clipboard?: () => Promise<void> } = {}) {
  const user = userEvent.setup();
  const writeText = vi.fn(clipboard);
  // After userEvent.setup(), which installs its own clipboard stub.
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  renderWithSession(<ShortenForm />);
  return { user, writeText, input: screen.getByRole('textbox', { name: 'URL to shorten' }) };
}

/** A shorten call that answers only when the test says so. */
function pendingShorten() {
  let answer: (response: Response) => void = () => undefined;
  const fetchMock = mockFetch(
    () =>
      new Promise<Response>((resolve) => {
        answer = resolve;
      }),
  );
  return {
    fetchMock,
    succeed: () => {
      answer(jsonResponse(200, { url: 'Ab3dE5g', loggedIn: false }));
    },
  };
}

describe('Home: the shorten form', () => {
  it("offers 'Shorten your URL' with the current host as placeholder", () => {
    setup();
    expect(screen.getByRole('heading', { name: 'Shorten your URL' })).toBeTruthy();
    expect(screen.getByRole('textbox').getAttribute('placeholder')).toBe(window.location.host);
    expect(screen.getByRole('button', { name: 'Shorten' })).toBeTruthy();
  });

  it('goes Shorten → Loading.. → Copy → Copied, the input showing the short link', async () => {
    const { user, writeText, input } = setup();
    const shorten = pendingShorten();

    await user.type(input, 'https://example.com/a?b=c');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    expect(screen.getByRole('button', { name: 'Loading..' })).toBeTruthy();

    shorten.succeed();
    const copy = await screen.findByRole('button', { name: 'Copy' });
    expect((input as HTMLInputElement).value).toBe(SHORT_LINK);
    expect(shorten.fetchMock.mock.calls[0]?.[0]).toBe(
      '/api/shorten/?url=https%3A%2F%2Fexample.com%2Fa%3Fb%3Dc&days=7',
    );

    await user.click(copy);
    expect(writeText).toHaveBeenCalledWith(SHORT_LINK);
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeTruthy();
  });

  it('goes back to Shorten, clearing result, error and copied state, when the input is edited', async () => {
    const { user, input } = setup();
    mockFetch(() => jsonResponse(200, { url: 'Ab3dE5g', loggedIn: false }));

    await user.type(input, 'not a url');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    expect(screen.getByRole('alert').textContent).toBe(MESSAGES.invalidUrl);
    await user.type(input, 'x');
    expect(screen.queryByRole('alert')).toBeNull();

    await user.clear(input);
    await user.type(input, 'https://example.com');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await user.click(await screen.findByRole('button', { name: 'Copy' }));
    await screen.findByRole('button', { name: 'Copied' });

    await user.type(input, '/');
    expect(screen.getByRole('button', { name: 'Shorten' })).toBeTruthy();
    expect((input as HTMLInputElement).value).toBe(`${SHORT_LINK}/`);
  });

  it("rejects what is not an absolute URL with '* Please enter a valid URL', sending nothing", async () => {
    const { user, input } = setup();
    const fetchMock = mockFetch(() => jsonResponse(200, { url: 'x', loggedIn: false }));

    await user.type(input, 'example');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));

    expect(screen.getByText(MESSAGES.invalidUrl)).toBeTruthy();
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('trims pasted whitespace and line breaks before sending', async () => {
    const { user, input } = setup();
    const fetchMock = mockFetch(() => jsonResponse(200, { url: 'Ab3dE5g', loggedIn: false }));

    await user.click(input);
    await user.paste('  https://example.com/x\n');
    await user.keyboard('{Enter}');

    await screen.findByRole('button', { name: 'Copy' });
    expect(fetchMock.mock.calls[0]?.[0]).toBe(
      '/api/shorten/?url=https%3A%2F%2Fexample.com%2Fx&days=7',
    );
  });

  it('sends one request when Shorten is double-clicked', async () => {
    const { user, input } = setup();
    const shorten = pendingShorten();

    await user.type(input, 'https://example.com');
    await user.dblClick(screen.getByRole('button', { name: 'Shorten' }));
    await user.click(screen.getByRole('button', { name: 'Loading..' }));
    shorten.succeed();

    await screen.findByRole('button', { name: 'Copy' });
    expect(shorten.fetchMock).toHaveBeenCalledTimes(1);
  });

  it("shows the server's message when shortening is refused", async () => {
    const { user, input } = setup();
    mockFetch(() => jsonResponse(403, { message: MESSAGES.loginForExpiry }));

    await user.type(input, 'https://example.com');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));

    expect((await screen.findByRole('alert')).textContent).toBe(MESSAGES.loginForExpiry);
    expect(screen.getByRole('button', { name: 'Shorten' })).toBeTruthy();
  });

  it('only logs a failed copy', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user, input } = setup({ clipboard: () => Promise.reject(new Error('denied')) });
    mockFetch(() => jsonResponse(200, { url: 'Ab3dE5g', loggedIn: false }));

    await user.type(input, 'https://example.com');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await user.click(await screen.findByRole('button', { name: 'Copy' }));

    await waitFor(() => {
      expect(error).toHaveBeenCalled();
    });
    expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('clears cached userData after a successful shorten', async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { user, input } = setup();
    mockFetch(() => jsonResponse(200, { url: 'Ab3dE5g', loggedIn: true }));

    await user.type(input, 'https://example.com');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('button', { name: 'Copy' });

    expect(localStorage.getItem('userData')).toBeNull();
  });
});

describe('Home: the expiry choice', () => {
  it('defaults to 7 days; signed out, longer choices are disabled with a hint', () => {
    setup();
    expect(screen.getByRole('button', { name: '7 days' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    for (const days of [15, 30, 60]) {
      const button = screen.getByRole('button', { name: `${String(days)} days` });
      expect((button as HTMLButtonElement).disabled).toBe(true);
      expect(button.getAttribute('aria-pressed')).toBe('false');
    }
    expect(screen.getByText('Login required to set expiry beyond 7 days.')).toBeTruthy();
  });

  it('signed in, offers every choice, one at a time, and sends the chosen one', async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { user, input } = setup();
    const fetchMock = mockFetch(() => jsonResponse(200, { url: 'Ab3dE5g', loggedIn: true }));

    expect(screen.queryByText(MESSAGES.loginForExpiry)).toBeNull();
    await user.click(screen.getByRole('button', { name: '60 days' }));
    await user.click(screen.getByRole('button', { name: '30 days' }));
    const pressed = screen
      .getAllByRole('button', { pressed: true })
      .map((button) => button.textContent);
    expect(pressed).toEqual(['30 days']);

    await user.type(input, 'https://example.com');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('button', { name: 'Copy' });
    expect(fetchMock.mock.calls[0]?.[0]).toBe(
      '/api/shorten/?url=https%3A%2F%2Fexample.com&days=30',
    );
  });
});

describe('Home: the alias', () => {
  it('is not offered signed out', () => {
    setup();
    expect(screen.queryByRole('textbox', { name: /Alias/ })).toBeNull();
    expect(screen.getAllByRole('textbox')).toHaveLength(1);
  });

  it('signed in, is an optional field under the URL, sent when filled', async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { user, input } = setup();
    const fetchMock = mockFetch(() => jsonResponse(201, { url: 'my-link', loggedIn: true }));

    const alias = screen.getByRole('textbox', { name: 'Alias (optional)' });
    await user.type(input, 'https://example.com');
    await user.type(alias, 'my-link');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('button', { name: 'Copy' });
    expect(fetchMock.mock.calls[0]?.[0]).toBe(
      '/api/shorten/?url=https%3A%2F%2Fexample.com&days=7&alias=my-link',
    );
    expect((input as HTMLInputElement).value).toBe(`${window.location.origin}/r/my-link`);
  });

  it('signed in and left empty, sends no alias', async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { user, input } = setup();
    const fetchMock = mockFetch(() => jsonResponse(201, { url: 'Ab3dE5g', loggedIn: true }));
    await user.type(input, 'https://example.com');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('button', { name: 'Copy' });
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/shorten/?url=https%3A%2F%2Fexample.com&days=7');
  });

  it.each([
    [409, ALIAS_MESSAGES.taken],
    [403, ALIAS_MESSAGES.reserved],
  ])("shows the server's message for a %i next to the form", async (status, message) => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { user, input } = setup();
    mockFetch(() => jsonResponse(status, { message }));
    await user.type(input, 'https://example.com');
    await user.type(screen.getByRole('textbox', { name: 'Alias (optional)' }), 'profile');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    expect((await screen.findByRole('alert')).textContent).toBe(message);

    await user.type(screen.getByRole('textbox', { name: 'Alias (optional)' }), 'x');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('Home: an alias refused', () => {
  it('marks the alias field, not the URL', async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { user, input } = setup();
    mockFetch(() => jsonResponse(409, { message: ALIAS_MESSAGES.taken }));
    await user.type(input, 'https://example.com');
    const alias = screen.getByRole('textbox', { name: 'Alias (optional)' });
    await user.type(alias, 'taken');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('alert');
    expect(alias.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-invalid')).toBe('false');
  });
});

describe('Home: what issue 37 asks of the form', () => {
  it.each([
    ['example.com/path', 'https://example.com/path'],
    ['www.example.com', 'https://www.example.com'],
    ['example.com:8080/a?b=c', 'https://example.com:8080/a?b=c'],
  ])('shortens the bare domain %s as %s', async (typed, sent) => {
    const { user, input } = setup();
    const fetchMock = mockFetch(() => jsonResponse(201, { url: 'Ab3dE5g', loggedIn: false }));
    await user.type(input, typed);
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('button', { name: 'Copy' });
    expect(fetchMock.mock.calls[0]?.[0]).toBe(
      `/api/shorten/?url=${encodeURIComponent(sent)}&days=7`,
    );
    expect((input as HTMLInputElement).value).toBe(SHORT_LINK);
  });

  it.each(['foo', 'javascript:alert(1)', 'mailto:a@example.com', 'ftp://example.com/x', 'a@b.c'])(
    "still answers %s with '* Please enter a valid URL', sending nothing",
    async (typed) => {
      const { user, input } = setup();
      const fetchMock = mockFetch(() => jsonResponse(201, { url: 'x', loggedIn: false }));
      await user.type(input, typed);
      await user.click(screen.getByRole('button', { name: 'Shorten' }));
      expect(screen.getByRole('alert').textContent).toBe(MESSAGES.invalidUrl);
      expect(fetchMock).not.toHaveBeenCalled();
    },
  );

  it('shows the destination after shortening; anonymous, no page to link to', async () => {
    const { user, input } = setup();
    mockFetch(() => jsonResponse(201, { url: 'Ab3dE5g', loggedIn: false }));
    await user.type(input, 'example.com/path');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('button', { name: 'Copy' });
    const result = screen.getByRole('region', { name: 'Your short link' });
    expect(result.textContent).toContain('https://example.com/path');
    expect(screen.queryByRole('link', { name: /stats and visitors/i })).toBeNull();
  });

  it("signed in, shows the destination and links the new link's page; the lead does not ask to sign in", async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { user, input } = setup();
    expect(screen.getByText(/^Paste a long link/).textContent).not.toMatch(/sign in/i);
    mockFetch(() => jsonResponse(201, { url: 'Ab3dE5g', loggedIn: true }));
    await user.type(input, 'https://example.com/path');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('button', { name: 'Copy' });
    const result = screen.getByRole('region', { name: 'Your short link' });
    expect(result.textContent).toContain('https://example.com/path');
    expect(screen.getByRole('link', { name: /stats and visitors/i }).getAttribute('href')).toBe(
      '/profile/Ab3dE5g',
    );
  });

  it('signed out, the lead asks to sign in to see who visits', () => {
    setup();
    expect(screen.getByText(/^Paste a long link/).textContent).toMatch(/Sign in/);
  });

  it('clears the result when the expiry changes', async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { user, input } = setup();
    mockFetch(() => jsonResponse(201, { url: 'Ab3dE5g', loggedIn: true }));
    await user.type(input, 'https://example.com/path');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('button', { name: 'Copy' });
    await user.click(screen.getByRole('button', { name: '30 days' }));
    expect(screen.getByRole('button', { name: 'Shorten' })).toBeTruthy();
    expect((input as HTMLInputElement).value).toBe('https://example.com/path');
    expect(screen.queryByRole('region', { name: 'Your short link' })).toBeNull();
  });

  it('puts an alias refusal under the alias field, after it in the page', async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { user, input } = setup();
    mockFetch(() => jsonResponse(409, { message: ALIAS_MESSAGES.taken }));
    await user.type(input, 'https://example.com');
    const alias = screen.getByRole('textbox', { name: 'Alias (optional)' });
    await user.type(alias, 'taken');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    const alert = await screen.findByRole('alert');
    expect(alias.compareDocumentPosition(alert) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(alias.getAttribute('aria-describedby')).toContain(alert.id);
    expect(screen.getByRole('button', { name: 'Shorten' }).compareDocumentPosition(alert)).toBe(
      Node.DOCUMENT_POSITION_FOLLOWING,
    );
  });

  it('shows the rate limit as a form message with a live countdown, the URL field not marked', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const { user, input } = setup();
      const message =
        'Too many links shortened: please wait 3 seconds, or sign in for a higher limit.';
      mockFetch(() => jsonResponse(403, { message }, { 'Retry-After': '3' }));
      await user.type(input, 'https://example.com');
      await user.click(screen.getByRole('button', { name: 'Shorten' }));
      const alert = await screen.findByRole('alert');
      expect(alert.textContent).toContain(message);
      expect(input.getAttribute('aria-invalid')).toBe('false');
      expect(screen.getByRole('timer').textContent).toBe('You can try again in 3 s.');
      await vi.advanceTimersByTimeAsync(1000);
      await waitFor(() =>
        expect(screen.getByRole('timer').textContent).toBe('You can try again in 2 s.'),
      );
      await vi.advanceTimersByTimeAsync(2000);
      await waitFor(() => expect(screen.queryByRole('timer')).toBeNull());
      expect(screen.getByRole('status').textContent).toBe('You can shorten again.');
    } finally {
      vi.useRealTimers();
    }
  });

  it("says 'Cannot reach the server' with a Retry that sends again, when the request fails outright", async () => {
    const { user, input } = setup();
    let down = true;
    const fetchMock = mockFetch(() =>
      down
        ? Promise.reject(new TypeError('Failed to fetch'))
        : jsonResponse(201, { url: 'Ab3dE5g', loggedIn: false }),
    );
    await user.type(input, 'https://example.com');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Cannot reach the server');
    expect(input.getAttribute('aria-invalid')).toBe('false');
    down = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByRole('button', { name: 'Copy' });
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
