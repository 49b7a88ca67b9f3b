import { ALIAS_MESSAGES, MESSAGES } from '@shortener/contracts';
import { screen, waitFor } from '@testing-library/react';
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

    await user.type(input, 'example.com');
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
