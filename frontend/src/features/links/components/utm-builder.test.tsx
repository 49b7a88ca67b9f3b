import { screen, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch } from '../../../test/http';
import { renderWithSession } from '../../../test/render';
import { ShortenForm } from './shorten-form';

function setup() {
  const user = userEvent.setup();
  const fetchMock = mockFetch(() => jsonResponse(200, { url: 'Ab3dE5g', loggedIn: false }));
  renderWithSession(<ShortenForm />);
  const url = screen.getByRole<HTMLInputElement>('textbox', { name: 'URL to shorten' });
  const field = (name: RegExp) => screen.getByRole<HTMLInputElement>('textbox', { name });
  return { user, fetchMock, url, field };
}

// Each test types URLs key by key: given 15 s on a busy machine.
describe('the UTM builder beside the URL field', () => {
  it('is folded away until asked for, then offers three labelled fields', async () => {
    const { user } = setup();
    const toggle = screen.getByRole('button', { name: 'UTM parameters' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByRole('textbox', { name: /utm_source/ })).toBeNull();

    await user.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const group = screen.getByRole('group', { name: 'UTM parameters' });
    expect(toggle.getAttribute('aria-controls')).toBe(group.id);
    expect(within(group).getAllByRole('textbox')).toHaveLength(3);
    expect(screen.getByRole('textbox', { name: 'Source utm_source' })).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Medium utm_medium' })).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Campaign utm_campaign' })).toBeTruthy();
  }, 15_000);

  it('writes the fields into the URL as they are typed, and clears one from it when emptied', async () => {
    const { user, url, field } = setup();
    await user.type(url, 'example.com/spring?ref=home');
    await user.click(screen.getByRole('button', { name: 'UTM parameters' }));
    await user.type(field(/utm_source/), 'newsletter');
    await user.type(field(/utm_medium/), 'e mail');
    await user.type(field(/utm_campaign/), 'spring');
    expect(url.value).toBe(
      'example.com/spring?ref=home&utm_source=newsletter&utm_medium=e%20mail&utm_campaign=spring',
    );
    await user.clear(field(/utm_medium/));
    expect(url.value).toBe('example.com/spring?ref=home&utm_source=newsletter&utm_campaign=spring');
  }, 15_000);

  it('shows what the URL holds: a URL pasted or edited fills the fields', async () => {
    const { user, url, field } = setup();
    await user.click(screen.getByRole('button', { name: 'UTM parameters' }));
    await user.click(url);
    await user.paste('https://example.com/?utm_source=ads&utm_campaign=black%20friday');
    expect(field(/utm_source/).value).toBe('ads');
    expect(field(/utm_medium/).value).toBe('');
    expect(field(/utm_campaign/).value).toBe('black friday');
    await user.type(url, 'X');
    expect(field(/utm_campaign/).value).toBe('black fridayX');
  }, 15_000);

  it('shortens the URL with its parameters, and a change of a field is a new link to make', async () => {
    const { user, url, field, fetchMock } = setup();
    await user.type(url, 'https://example.com/a');
    await user.click(screen.getByRole('button', { name: 'UTM parameters' }));
    await user.type(field(/utm_source/), 'qr');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    await screen.findByRole('button', { name: 'Copy' });
    expect(fetchMock.mock.calls[0]?.[0]).toBe(
      `/api/shorten/?url=${encodeURIComponent('https://example.com/a?utm_source=qr')}&days=7`,
    );
    await user.type(field(/utm_source/), '2');
    expect(screen.getByRole('button', { name: 'Shorten' })).toBeTruthy();
    expect(url.value).toBe('https://example.com/a?utm_source=qr2');
  }, 15_000);
});
