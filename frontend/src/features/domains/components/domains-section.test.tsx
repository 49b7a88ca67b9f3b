import { DOMAIN_MESSAGES, type Domain } from '@shortener/contracts';
import { act, screen, waitFor, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';

function aDomain(host = 'go.acme.example', verified = false): Domain {
  return {
    host,
    verified,
    verification: {
      type: 'TXT',
      name: `_shortener-verify.${host}`,
      value: 'shortener-verify=abcdefghijklmnopqrstuvwx',
    },
  };
}

/** The settings page, signed in with userData cached; the keys section answers an empty list. */
function setup(domains: (url: string, init: RequestInit) => Response | Promise<Response>) {
  signIn();
  localStorage.setItem('userData', JSON.stringify(aUser()));
  const user = userEvent.setup();
  const writeText = vi.fn(() => Promise.resolve());
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  const fetchMock = mockFetch((url, init) =>
    url.startsWith('/api/domains') ? domains(url, init) : jsonResponse(200, []),
  );
  renderApp('/settings');
  return {
    user,
    fetchMock,
    writeText,
    section: () => screen.getByRole('region', { name: 'Domains' }),
  };
}

/** The section's calls (the session's and the keys' aside). */
const calls = (fetchMock: ReturnType<typeof mockFetch>) =>
  fetchMock.mock.calls
    .map(([url, init]) => `${init?.method ?? 'GET'} ${typeof url === 'string' ? url : '?'}`)
    .filter((call) => call.includes(' /api/domains'));

describe('the domains section of the settings page', () => {
  it('lists the domains, an unverified one with the TXT record to create', async () => {
    const { section } = setup(() =>
      jsonResponse(200, [aDomain(), aDomain('links.shop.example', true)]),
    );
    const list = await screen.findByRole('list', { name: 'Your domains' });
    const [pending, verified] = within(list).getAllByRole('listitem');
    expect(within(pending!).getByText('go.acme.example')).toBeTruthy();
    expect(within(pending!).getByText('Not verified')).toBeTruthy();
    expect(pending!.textContent).toContain('Create this TXT record at your DNS provider:');
    expect(within(pending!).getByText('_shortener-verify.go.acme.example')).toBeTruthy();
    expect(within(pending!).getByText('shortener-verify=abcdefghijklmnopqrstuvwx')).toBeTruthy();
    expect(within(pending!).getByRole('button', { name: 'Verify' })).toBeTruthy();
    expect(within(verified!).getByText('Verified')).toBeTruthy();
    expect(within(verified!).queryByRole('button', { name: 'Verify' })).toBeNull();
    // A verified domain leads to its links' analytics; one not verified has no links yet.
    expect(
      within(verified!).getByRole('link', { name: "Its links' analytics" }).getAttribute('href'),
    ).toBe('/analytics?domain=links.shop.example');
    expect(within(pending!).queryByRole('link')).toBeNull();
    expect(within(section()).getByRole('heading', { level: 2, name: 'Domains' })).toBeTruthy();
  });

  it('says when there are none', async () => {
    setup(() => jsonResponse(200, []));
    expect(await screen.findByText('No domains yet.')).toBeTruthy();
  });

  it('adds a domain and shows its record first, each part with its copy button', async () => {
    const { user, fetchMock, writeText, section } = setup((_, init) =>
      init.method === 'POST' ? jsonResponse(201, aDomain()) : jsonResponse(200, []),
    );
    await screen.findByText('No domains yet.');
    await user.type(within(section()).getByLabelText('Domain'), ' go.acme.example ');
    await user.click(within(section()).getByRole('button', { name: 'Add domain' }));
    const item = await within(section()).findByRole('listitem');
    expect(within(section()).getByLabelText<HTMLInputElement>('Domain').value).toBe('');
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === 'POST');
    expect(post?.[1]?.body).toBe(JSON.stringify({ host: 'go.acme.example' }));

    await user.click(within(item).getByRole('button', { name: 'Copy record name' }));
    expect(writeText).toHaveBeenLastCalledWith('_shortener-verify.go.acme.example');
    expect(within(item).getByRole('button', { name: 'Copy record name' }).textContent).toBe(
      'Copied',
    );
    await user.click(within(item).getByRole('button', { name: 'Copy record value' }));
    expect(writeText).toHaveBeenLastCalledWith('shortener-verify=abcdefghijklmnopqrstuvwx');
  });

  it("shows the API's refusal of a host under the field", async () => {
    const { user, section } = setup((_, init) =>
      init.method === 'POST'
        ? jsonResponse(400, { message: DOMAIN_MESSAGES.ipLiteral })
        : jsonResponse(200, []),
    );
    await screen.findByText('No domains yet.');
    const field = within(section()).getByLabelText('Domain');
    await user.type(field, '10.0.0.1');
    await user.click(within(section()).getByRole('button', { name: 'Add domain' }));
    const alert = await within(section()).findByRole('alert');
    expect(alert.textContent).toBe(DOMAIN_MESSAGES.ipLiteral);
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(field.getAttribute('aria-describedby')).toBe(alert.id);
  });

  it('verifies with progress shown, says what is missing on failure, and marks it verified', async () => {
    let answer: (response: Response) => void = () => undefined;
    const { user, fetchMock } = setup((url) =>
      url.endsWith('/verify')
        ? new Promise<Response>((resolve) => (answer = resolve))
        : jsonResponse(200, [aDomain()]),
    );
    const list = await screen.findByRole('list', { name: 'Your domains' });
    const missing = DOMAIN_MESSAGES.recordMissing(
      '_shortener-verify.go.acme.example',
      'shortener-verify=abcdefghijklmnopqrstuvwx',
    );

    await user.click(within(list).getByRole('button', { name: 'Verify' }));
    const busy = within(list).getByRole('button', { name: 'Verifying..' });
    expect(busy.getAttribute('aria-busy')).toBe('true');
    expect(within(list).getByText('Looking up the TXT record of go.acme.example…')).toBeTruthy();
    void act(() => answer(jsonResponse(422, { message: missing })));
    expect((await within(list).findByRole('alert')).textContent).toBe(missing);
    expect(within(list).getByText('Not verified')).toBeTruthy();

    await user.click(within(list).getByRole('button', { name: 'Verify' }));
    expect(within(list).queryByRole('alert')).toBeNull();
    void act(() => answer(jsonResponse(200, aDomain('go.acme.example', true))));
    expect(await within(list).findByText('Verified')).toBeTruthy();
    expect(within(list).queryByRole('button', { name: 'Verify' })).toBeNull();
    expect(calls(fetchMock)).toEqual([
      'GET /api/domains',
      'POST /api/domains/go.acme.example/verify',
      'POST /api/domains/go.acme.example/verify',
    ]);
  });

  it('removes a domain at once and offers Undo, which brings it back', async () => {
    let listed = [aDomain()];
    const { user, fetchMock, section } = setup((url, init) => {
      if (init.method === 'DELETE') {
        listed = [];
        return new Response(null, { status: 204 });
      }
      if (url.endsWith('/restore')) {
        listed = [aDomain()];
        return jsonResponse(200, aDomain());
      }
      return jsonResponse(200, listed);
    });
    const list = await screen.findByRole('list', { name: 'Your domains' });
    const remove = within(list).getByRole('button', { name: 'Remove' });
    expect(remove.getAttribute('aria-describedby')).toBe(
      within(list).getByText('go.acme.example').id,
    );
    await user.click(remove);
    expect(await within(section()).findByText('No domains yet.')).toBeTruthy();
    const notice = screen
      .getAllByRole('status')
      .find((each) => each.textContent?.includes('Domain removed.'));
    expect(notice).toBeTruthy();

    await user.click(within(notice!).getByRole('button', { name: 'Undo' }));
    expect(await within(section()).findByText('go.acme.example')).toBeTruthy();
    await waitFor(() => expect(notice!.textContent).toBe(''));
    expect(calls(fetchMock)).toEqual([
      'GET /api/domains',
      'DELETE /api/domains/go.acme.example',
      'POST /api/domains/go.acme.example/restore',
      'GET /api/domains',
    ]);
  });

  it('ends the offer of Undo on its own after a while', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const { user, section } = setup((_, init) =>
        init.method === 'DELETE'
          ? new Response(null, { status: 204 })
          : jsonResponse(200, [aDomain()]),
      );
      const list = await screen.findByRole('list', { name: 'Your domains' });
      await user.click(within(list).getByRole('button', { name: 'Remove' }));
      await within(section()).findByText('Domain removed.');
      await act(async () => {
        await vi.advanceTimersByTimeAsync(6_000);
      });
      expect(within(section()).queryByText('Domain removed.')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
