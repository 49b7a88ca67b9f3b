import type { ApiKey } from '@shortener/contracts';
import { screen, waitFor, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';

const KEY = `shk_AbCdE12345_${'s'.repeat(40)}`;

function aKey(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: 'AbCdE12345',
    label: 'shk_AbCdE12345',
    name: 'Deploy script',
    scopes: ['links:write'],
    createdAt: new Date(2026, 0, 2, 3, 4, 5).getTime(),
    ...overrides,
  };
}

/** The settings page, signed in with userData cached. */
function setup(handler: Parameters<typeof mockFetch>[0], path = '/settings') {
  signIn();
  localStorage.setItem('userData', JSON.stringify(aUser()));
  const user = userEvent.setup();
  const writeText = vi.fn(() => Promise.resolve());
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  const fetchMock = mockFetch(handler);
  const { router } = renderApp(path);
  return { user, fetchMock, writeText, router };
}

/** The section's calls (the session's own /api/user aside). */
const calls = (fetchMock: ReturnType<typeof mockFetch>) =>
  fetchMock.mock.calls
    .map(([url, init]) => `${init?.method ?? 'GET'} ${typeof url === 'string' ? url : '?'}`)
    .filter((call) => call.includes(' /api/keys'));

describe('the API keys section', () => {
  it('is a page of its own, linked from the list, which asks for no keys', async () => {
    const { user, fetchMock, router } = setup(() => jsonResponse(200, [aKey()]), '/profile');
    await screen.findByRole('heading', { level: 1, name: "Ada Lovelace's URLs" });
    expect(screen.queryByRole('region', { name: 'API keys' })).toBeNull();
    expect(calls(fetchMock)).toEqual([]);

    await user.click(screen.getByRole('link', { name: 'API keys' }));
    expect(router.location.pathname).toBe('/settings');
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeTruthy();
    const section = screen.getByRole('region', { name: 'API keys' });
    expect(await within(section).findByText('Deploy script')).toBeTruthy();
    expect(document.title).toMatch(/^Settings · /);
    await user.click(screen.getByRole('link', { name: 'Your links' }));
    expect(router.location.pathname).toBe('/profile');
  });

  it('lists the keys with their dates', async () => {
    const used = aKey({ id: 'Used123456', name: 'Cron', lastUsedAt: Date.now() });
    const { fetchMock } = setup(() => jsonResponse(200, [aKey(), used]));
    const list = await screen.findByRole('list', { name: 'Your API keys' });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(first?.textContent).toContain('Deploy script');
    expect(first?.textContent).toContain('shk_AbCdE12345…');
    expect(first?.textContent).toContain('02/01/2026 03:04:05');
    expect(first?.textContent).toContain('Never');
    expect(second?.textContent).not.toContain('Never');
    expect(calls(fetchMock)).toEqual(['GET /api/keys']);
    const keys = fetchMock.mock.calls.find(([url]) => url === '/api/keys');
    const headers = keys?.[1]?.headers as Record<string, string>;
    expect(headers['X-Requested-With']).toBe('XMLHttpRequest');
  });

  it('makes a key with the name and scopes chosen, shows it once with Copy, and forgets it on Done', async () => {
    const { user, fetchMock, writeText } = setup((url, init) =>
      init.method === 'POST'
        ? jsonResponse(201, { ...aKey({ scopes: ['links:write', 'stats:read'] }), key: KEY })
        : jsonResponse(200, []),
    );
    await screen.findByText('No API keys yet.');
    await user.type(screen.getByLabelText('Name'), '  Deploy script ');
    await user.click(screen.getByRole('checkbox', { name: /stats:read/ }));
    await user.click(screen.getByRole('button', { name: 'Create key' }));

    expect(await screen.findByText(KEY)).toBeTruthy();
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === 'POST');
    expect(post?.[0]).toBe('/api/keys');
    expect(JSON.parse(post?.[1]?.body as string)).toEqual({
      name: 'Deploy script',
      scopes: ['links:write', 'stats:read'],
    });
    await user.click(screen.getByRole('button', { name: 'Copy API key' }));
    expect(writeText).toHaveBeenCalledWith(KEY);
    expect(screen.getByRole('button', { name: 'Copy API key' }).textContent).toBe('Copied');
    expect(within(screen.getByRole('list')).getAllByRole('listitem')).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByText(KEY)).toBeNull();
  });

  it("shows the server's message when a key is refused, and keeps the form", async () => {
    const { user } = setup((_url, init) =>
      init.method === 'POST'
        ? jsonResponse(409, {
            message: 'You have 50 API keys: revoke one you no longer use first.',
          })
        : jsonResponse(200, []),
    );
    await user.type(screen.getByLabelText('Name'), 'One more');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect((await screen.findByRole('alert')).textContent).toContain(
      'revoke one you no longer use',
    );
    expect(screen.getByLabelText<HTMLInputElement>('Name').value).toBe('One more');
  });

  it('revokes a key once asked to confirm: gone from the list once the server says so', async () => {
    const { user, fetchMock } = setup((url) =>
      url.endsWith('/revoke') ? new Response(null, { status: 204 }) : jsonResponse(200, [aKey()]),
    );
    await user.click(await screen.findByRole('button', { name: 'Revoke' }));
    // Nothing is revoked yet: the row asks first.
    expect(calls(fetchMock)).toEqual(['GET /api/keys']);
    const item = screen.getByRole('listitem');
    expect(item.textContent).toContain('Revoke “Deploy script”?');
    await user.click(within(item).getByRole('button', { name: 'Revoke key' }));
    await waitFor(() => expect(screen.getByText('No API keys yet.')).toBeTruthy());
    expect(calls(fetchMock)).toEqual(['GET /api/keys', 'POST /api/keys/AbCdE12345/revoke']);
  });

  it('keeps the key when the confirmation is cancelled (Cancel or Escape)', async () => {
    const { user, fetchMock } = setup(() => jsonResponse(200, [aKey()]));
    await user.click(await screen.findByRole('button', { name: 'Revoke' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    // Back where it was, the focus on the Revoke button.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Revoke' }));
    await user.click(screen.getByRole('button', { name: 'Revoke' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Revoke key' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('button', { name: 'Revoke key' })).toBeNull();
    expect(screen.getByRole('listitem').textContent).toContain('Deploy script');
    expect(calls(fetchMock)).toEqual(['GET /api/keys']);
  });

  it('says why "Create key" is disabled: no name, then no scope', async () => {
    const { user } = setup(() => jsonResponse(200, []));
    const create = screen.getByRole('button', { name: 'Create key' });
    expect(create).toHaveProperty('disabled', true);
    expect(screen.getByText('Give the key a name.')).toBeTruthy();
    expect(create.getAttribute('aria-describedby')).toBe(
      screen.getByText('Give the key a name.').id,
    );
    await user.type(screen.getByLabelText('Name'), 'Deploy');
    expect(create).toHaveProperty('disabled', false);
    expect(screen.queryByText('Give the key a name.')).toBeNull();
    expect(create.getAttribute('aria-describedby')).toBeNull();
    await user.click(screen.getByRole('checkbox', { name: /links:write/ }));
    expect(create).toHaveProperty('disabled', true);
    expect(screen.getByText(/^Choose at least one scope/)).toBeTruthy();
  });
});
