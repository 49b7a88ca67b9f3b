import { screen, waitFor } from '@testing-library/preact';
import { describe, expect, it } from 'vitest';
import { aLink, aUser } from '../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../test/http';
import { renderApp } from '../test/render';
import { preloadPageAt } from './router';

// A file of its own: the pages' chunks are the module's, fetched once per file.
describe("a page's chunk fetched before the first render (preloadPageAt, main.tsx)", () => {
  it("keeps the screen's height on a link's page while userData comes, as while its chunk came", async () => {
    signIn();
    mockFetch(() => new Promise<Response>(() => undefined));
    renderApp(`/profile/${aLink().urlID}`);
    // The page's own chunk has come once it has set its title.
    await waitFor(() => expect(document.title).toContain('Link details'));
    expect(screen.getByText('Loading....').closest('.tall-pending')).not.toBeNull();
  });

  it('shows the list and a link with their content in the first render, with no wait of their own', async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    mockFetch(() => jsonResponse(404, { message: 'No visitors' }));
    await preloadPageAt('/profile');
    renderApp('/profile');
    expect(
      screen.getByRole('heading', { level: 1, name: `${aUser().fullName}'s URLs` }),
    ).toBeTruthy();
    expect(screen.queryByText('Loading....')).toBeNull();
  });

  it("renders a link's page at once after it", async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    mockFetch(() => new Promise<Response>(() => undefined));
    await preloadPageAt(`/profile/${aLink().urlID}`);
    renderApp(`/profile/${aLink().urlID}`);
    expect(screen.getByRole('heading', { level: 1, name: /example\.com/ })).toBeTruthy();
  });

  it('does nothing, and never fails, for a page in the entry itself', async () => {
    await expect(preloadPageAt('/')).resolves.toBeUndefined();
  });
});
