import { screen, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { render } from '@testing-library/preact';
import { Link, MemoryRouter, Route, Routes } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import { SessionProvider } from '../features/auth';
import { UndoDeleteProvider } from '../features/links';
import { aUser } from '../test/fixtures';
import { mockFetch, signIn } from '../test/http';
import { renderApp } from '../test/render';
import { AppLayout } from './layout';
import { RouteErrorBoundary } from './routes/route-error';

describe('the frame around every route', () => {
  it("has a top bar with the title, Tracking, SPEC's profile link with a generic icon, and 'Sign in' beside it when signed out", () => {
    renderApp('/tc?x=1');
    const main = screen.getByRole('navigation', { name: 'Main' });
    expect(screen.getByRole('link', { name: 'URL Shortener' }).getAttribute('href')).toBe('/');
    expect(within(main).getByRole('link', { name: 'Tracking' }).getAttribute('href')).toBe(
      '/profile',
    );
    // SPEC section 2: a profile link to '/profile', a generic icon when not signed in.
    const profile = within(main).getByRole('link', { name: 'Profile' });
    expect(profile.getAttribute('href')).toBe('/profile');
    expect(profile.querySelector('img')).toBeNull();
    expect(profile.querySelector('svg')).not.toBeNull();
    const signIn = within(main).getByRole('link', { name: 'Sign in' });
    // A browser navigation that brings the user back to the page they were on.
    expect(signIn.getAttribute('href')).toBe('/login?from=%2Ftc%3Fx%3D1');
    expect(signIn.textContent).toBe('Sign in');
  });

  it("shows the profile link (a generic icon without a picture) and no 'Sign in' when signed in", () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser({ profilePicture: '' })));
    renderApp('/');
    const main = screen.getByRole('navigation', { name: 'Main' });
    const profile = within(main).getByRole('link', { name: 'Profile' });
    expect(profile.getAttribute('href')).toBe('/profile');
    expect(profile.querySelector('img')).toBeNull();
    expect(profile.querySelector('svg')).not.toBeNull();
    expect(within(main).queryByRole('link', { name: 'Sign in' })).toBeNull();
  });

  it("shows the signed-in user's picture from cached userData", () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    renderApp('/');
    const picture = screen.getByRole('link', { name: 'Profile' }).querySelector('img');
    expect(picture?.getAttribute('src')).toBe(aUser().profilePicture);
  });

  it('has a footer with the source repository, terms and privacy policy', () => {
    renderApp('/tc');
    const footer = screen.getByRole('navigation', { name: 'Footer' });
    const source = within(footer).getByRole('link', { name: /Source code/ });
    expect(source.getAttribute('href')).toMatch(/^https:\/\//);
    expect(source.getAttribute('rel')).toBe('noopener noreferrer');
    expect(
      within(footer).getByRole('link', { name: 'Terms and conditions' }).getAttribute('href'),
    ).toBe('/tc');
    expect(within(footer).getByRole('link', { name: 'Privacy policy' }).getAttribute('href')).toBe(
      '/privacy_policy',
    );
  });

  it('serves the terms and the privacy policy', () => {
    renderApp('/tc');
    expect(screen.getByRole('heading', { level: 1, name: 'Terms and conditions' })).toBeTruthy();
    renderApp('/privacy_policy');
    expect(screen.getByRole('heading', { level: 1, name: 'Privacy policy' })).toBeTruthy();
  });

  it("answers any other path with 'Page not found.' and a Home button", async () => {
    const user = userEvent.setup();
    const { router } = renderApp('/no/such/page');
    expect(screen.getByRole('heading', { name: 'Page not found.' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Home' }));
    expect(router.location.pathname).toBe('/');
    expect(screen.getByRole('heading', { name: 'Shorten your URL' })).toBeTruthy();
  });

  it('keeps the frame and offers a way out when a page fails to render, and shows the next page', async () => {
    const user = userEvent.setup();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    function Broken(): never {
      throw new Error('boom');
    }
    function Elsewhere() {
      return <h1>Another page</h1>;
    }
    render(
      <SessionProvider>
        <UndoDeleteProvider>
          <MemoryRouter>
            <Routes>
              <Route element={<AppLayout />}>
                <Route path="/" element={<Broken />} />
                <Route path="/elsewhere" element={<Elsewhere />} />
              </Route>
            </Routes>
            <Link to="/elsewhere">Go elsewhere</Link>
          </MemoryRouter>
        </UndoDeleteProvider>
      </SessionProvider>,
    );

    expect(screen.getByRole('heading', { name: 'Something went wrong.' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'URL Shortener' })).toBeTruthy();

    await user.click(screen.getByRole('link', { name: 'Go elsewhere' }));
    expect(screen.getByRole('heading', { name: 'Another page' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Something went wrong.' })).toBeNull();
  });

  it('offers a way out on a page of its own when the frame itself fails to render', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    function BrokenFrame(): never {
      throw new Error('boom');
    }
    render(
      <MemoryRouter>
        <RouteErrorBoundary standalone>
          <BrokenFrame />
        </RouteErrorBoundary>
      </MemoryRouter>,
    );

    expect(screen.getByRole('heading', { name: 'Something went wrong.' })).toBeTruthy();
    expect(screen.getByRole('main')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Home' }).getAttribute('href')).toBe('/');
  });
});

describe('profile pages when signed out', () => {
  it.each([
    ['/profile', '/login?from=%2Fprofile'],
    ['/profile/Ab3dE5g', '/login?from=%2Fprofile%2FAb3dE5g'],
  ])('%s asks to sign in with Google, coming back to the page', (path, href) => {
    const fetchMock = mockFetch(() => new Response(null, { status: 500 }));
    renderApp(path);

    expect(screen.getByRole('heading', { name: 'You must login first' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sign in with Google' }).getAttribute('href')).toBe(
      href,
    );
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('forgets what an earlier session cached', () => {
    localStorage.setItem('userData', JSON.stringify(aUser()));
    localStorage.setItem('visitors-Ab3dE5g', '[]');
    renderApp('/');
    expect(localStorage.length).toBe(0);
  });
});
