import { LINK_RULES_MESSAGES, type Domain, type ShortLink } from '@shortener/contracts';
import { screen, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { aLink, aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp, renderWithSession } from '../../../test/render';
import { ShortenForm } from './shorten-form';

const domain = (host: string, verified: boolean): Domain => ({
  host,
  verified,
  verification: { type: 'TXT', name: `_shortener-verify.${host}`, value: 'shortener-verify=x' },
});
const DOMAINS = [domain('go.acme.example', true), domain('new.acme.example', false)];

function signedIn(link: ShortLink = aLink()) {
  signIn();
  localStorage.setItem('userData', JSON.stringify(aUser({ urls: [link] })));
}

describe("the shorten form's domain and rules", () => {
  it('offers the verified domains, sends the link with its rules by POST /api/links, and shows its short URL', async () => {
    signedIn();
    const user = userEvent.setup();
    const fetchMock = mockFetch((url) =>
      url === '/api/domains'
        ? jsonResponse(200, DOMAINS)
        : url === '/api/links'
          ? jsonResponse(200, {
              results: [
                {
                  status: 201,
                  url: 'Xy12345',
                  domain: 'go.acme.example',
                  shortUrl: 'https://go.acme.example/spring',
                },
              ],
            })
          : jsonResponse(200, aUser()),
    );
    renderWithSession(<ShortenForm />);
    await user.type(
      screen.getByRole('textbox', { name: 'URL to shorten' }),
      'https://example.com/a',
    );
    const toggle = screen.getByRole('button', { name: 'Domain and rules' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    await user.click(toggle);

    const select = await screen.findByRole<HTMLSelectElement>('combobox', { name: 'Domain' });
    await within(select).findByRole('option', { name: 'go.acme.example' });
    expect(
      within(select)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual([`${window.location.host} (this service)`, 'go.acme.example']);
    await user.selectOptions(select, 'go.acme.example');
    // The alias is the back-half on the domain.
    expect(document.querySelector('.alias__prefix')?.textContent).toBe('go.acme.example/');
    await user.type(screen.getByRole('textbox', { name: /Alias/ }), 'spring');
    await user.type(
      screen.getByLabelText('iPhone and iPad visitors go to'),
      'https://apps.apple.com/a',
    );
    await user.click(screen.getByRole('button', { name: 'Add a country' }));
    await user.type(screen.getByLabelText('Country 1'), 'gb');
    await user.type(
      screen.getByLabelText('Visitors from country 1 go to'),
      'https://example.co.uk',
    );
    await user.type(screen.getByLabelText('Password'), 'open sesame');
    await user.type(screen.getByLabelText('Visit cap'), '100');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));

    await screen.findByRole('button', { name: 'Copy' });
    expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'URL to shorten' }).value).toBe(
      'https://go.acme.example/spring',
    );
    const post = fetchMock.mock.calls.find(([url]) => url === '/api/links');
    expect(JSON.parse(post?.[1]?.body as string)).toEqual([
      {
        url: 'https://example.com/a',
        days: 7,
        alias: 'spring',
        domain: 'go.acme.example',
        ios: 'https://apps.apple.com/a',
        geo: { GB: 'https://example.co.uk' },
        password: 'open sesame',
        maxVisits: 100,
      },
    ]);
    expect(screen.getByRole('link', { name: 'Its stats and visitors' }).getAttribute('href')).toBe(
      '/profile/Xy12345',
    );
  }, 20_000);

  it('shows a refusal of a rule with the rules, not under the URL', async () => {
    signedIn();
    const user = userEvent.setup();
    const refusal = LINK_RULES_MESSAGES.url(
      'android',
      'Only http and https URLs can be shortened.',
    );
    mockFetch((url) =>
      url === '/api/links'
        ? jsonResponse(200, { results: [{ status: 400, message: refusal }] })
        : url === '/api/domains'
          ? jsonResponse(200, DOMAINS)
          : jsonResponse(200, aUser()),
    );
    renderWithSession(<ShortenForm />);
    const input = screen.getByRole('textbox', { name: 'URL to shorten' });
    await user.type(input, 'https://example.com/a');
    await user.click(screen.getByRole('button', { name: 'Domain and rules' }));
    await user.type(await screen.findByLabelText('Android visitors go to'), 'ftp://x');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(refusal);
    expect(alert.closest('.link-options')).toBeTruthy();
    expect(input.getAttribute('aria-invalid')).toBe('false');
  });
});

describe('a link with a domain and rules on its page', () => {
  const link = aLink({
    urlID: 'Xy12345',
    domain: 'go.acme.example',
    shortUrl: 'https://go.acme.example/spring',
    ios: 'https://apps.apple.com/a',
    geo: { GB: 'https://example.co.uk' },
    hasPassword: true,
    maxVisits: 100,
  });

  it('shows its own short URL and its rules', async () => {
    signedIn(link);
    mockFetch((url) =>
      url === '/api/domains' ? jsonResponse(200, DOMAINS) : jsonResponse(404, {}),
    );
    renderApp('/profile/Xy12345');
    const rules = await screen.findByRole('region', { name: 'Domain and rules' });
    expect(document.querySelector('.detail__short-link')?.textContent).toBe(
      'https://go.acme.example/spring',
    );
    const text = rules.textContent ?? '';
    expect(text).toContain('Domaingo.acme.example');
    expect(text).toContain('iPhone and iPad visitorshttps://apps.apple.com/a');
    expect(text).toContain('(GB)https://example.co.uk');
    expect(text).toContain('PasswordAsked before the visit');
    expect(text).toContain('Visit cap100 visits, then it stops');
  });

  it('edits them: the form starts from the link and sends only the change, null to remove', async () => {
    signedIn(link);
    const user = userEvent.setup();
    const fetchMock = mockFetch((url, init) =>
      url === '/api/domains'
        ? jsonResponse(200, DOMAINS)
        : init.method === 'PATCH'
          ? jsonResponse(200, { ...link, hasPassword: undefined, maxVisits: 50 })
          : jsonResponse(404, {}),
    );
    renderApp('/profile/Xy12345');
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const form = screen.getByRole('form', { name: 'Edit link' });
    expect(
      within(form).getByLabelText<HTMLInputElement>('iPhone and iPad visitors go to').value,
    ).toBe('https://apps.apple.com/a');
    expect(within(form).getByLabelText<HTMLInputElement>('Country 1').value).toBe('GB');
    await user.click(within(form).getByRole('checkbox', { name: 'Remove the password' }));
    const cap = within(form).getByLabelText('Visit cap');
    await user.clear(cap);
    await user.type(cap, '50');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved.');
    const patch = fetchMock.mock.calls.find(([, init]) => init?.method === 'PATCH');
    expect(patch?.[0]).toBe('/api/links/Xy12345');
    expect(JSON.parse(patch?.[1]?.body as string)).toEqual({ password: null, maxVisits: 50 });
  });
});
