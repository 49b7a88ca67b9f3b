import { act, screen, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { hydrateRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderHome } from '../prerender';
import { aUser } from '../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../test/http';
import { App } from './app';
import { AppRoutes } from './router';
import { shellOf } from './shell';

/**
 * The home page as the build prerenders it, taken over by the app as main.tsx does: React's
 * development build reports any difference between the markup and its first render (an
 * attribute, a text, an element) on the console or as a recoverable error.
 */
describe('the prerendered home page', () => {
  let root: Root | undefined;
  afterEach(() => {
    void act(() => root?.unmount());
    root = undefined;
    document.body.innerHTML = '';
  });

  async function hydrateAt(path: string, markup: string) {
    const errors = vi.spyOn(console, 'error');
    const recoverable = vi.fn();
    document.body.innerHTML = markup;
    const container = document.getElementById('root') as HTMLElement;
    const prerendered = {
      input: screen.getByRole('textbox', { name: 'URL to shorten' }),
      footer: screen.getByRole('contentinfo'),
    };
    await act(async () => {
      root = hydrateRoot(
        container,
        <App shell={shellOf(container) ?? undefined}>
          <MemoryRouter initialEntries={[path]}>
            <AppRoutes />
          </MemoryRouter>
        </App>,
        { onRecoverableError: recoverable },
      );
      await Promise.resolve();
    });
    return { errors, recoverable, prerendered };
  }

  it('is the signed-out home page, taken over as it is, then shows what only the browser knows', async () => {
    const markup = renderHome({ signedIn: false });
    expect(markup).toMatch(/^<div id="root" data-shell="signed-out">/);
    const { errors, recoverable, prerendered } = await hydrateAt('/?ref=mail', markup);

    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    // The same elements, not a second copy painted over the first.
    const input = screen.getByRole('textbox', { name: 'URL to shorten' });
    expect(input).toBe(prerendered.input);
    expect(screen.getByRole('contentinfo')).toBe(prerendered.footer);
    expect(input.getAttribute('placeholder')).toBe(window.location.host);
    const main = screen.getByRole('navigation', { name: 'Main' });
    expect(within(main).getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe(
      '/login?from=%2F%3Fref%3Dmail',
    );
  });

  it('shortens once taken over', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { url: 'abc1234', loggedIn: false }));
    const { errors } = await hydrateAt('/', renderHome({ signedIn: false }));
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'URL to shorten' }), 'https://a.example/x');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    expect(await screen.findByRole('button', { name: 'Copy' })).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('textbox', { name: 'URL to shorten' })).toHaveProperty(
      'value',
      `${window.location.origin}/r/abc1234`,
    );
    expect(errors).not.toHaveBeenCalled();
  });

  it("is the signed-in home page for a signed-in visitor, then shows their picture and the alias field's host", async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const markup = renderHome({ signedIn: true });
    expect(markup).toMatch(/^<div id="root" data-shell="signed-in">/);
    const { errors, recoverable } = await hydrateAt('/', markup);

    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    const picture = screen.getByRole('link', { name: 'Profile' }).querySelector('img');
    expect(picture?.getAttribute('src')).toBe(aUser().profilePicture);
    expect(screen.getByRole('textbox', { name: /Alias/ })).toBeTruthy();
    expect(document.querySelector('.alias__host')?.textContent).toBe(window.location.host);
    expect(screen.getByRole('button', { name: '60 days' })).toHaveProperty('disabled', false);
  });

  it('takes over the signed-out page for a visitor signed in meanwhile, then shows them signed in', async () => {
    const markup = renderHome({ signedIn: false });
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    const { errors, recoverable } = await hydrateAt('/', markup);

    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(screen.getByRole('link', { name: 'Profile' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Sign in' })).toBeNull();
    expect(screen.getByRole('button', { name: '15 days' })).toHaveProperty('disabled', false);
  });
});
