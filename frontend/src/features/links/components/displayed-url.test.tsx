import { screen, within } from '@testing-library/preact';
import { describe, expect, it } from 'vitest';
import { aLink, aUser } from '../../../test/fixtures';
import { signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';

// The API gives each URL as it was typed; the list and the detail show where the short link
// really goes (the redirect's normalised URL), and mark a host that mixes scripts.

/** A right-to-left override makes ".../exe.jpg" of ".../gpj.exe"; zero-width spaces hide. */
const HIDDEN = aLink({
  urlID: 'Hidden1',
  originalUrl: 'https://ex\u200Bample.com/\u202Egpj.exe?q=\u200B',
});
const HIDDEN_NORMALISED = 'https://example.com/%E2%80%AEgpj.exe?q=%E2%80%8B';
/** аpple.com with a Cyrillic 'а'. */
const LOOKALIKE = aLink({ urlID: 'Lookal1', originalUrl: 'https://\u0430pple.com/signin?x=1' });
const IDN = aLink({ urlID: 'Idnlink', originalUrl: 'https://例え.jp/パス' });

function cacheUser() {
  signIn();
  localStorage.setItem('userData', JSON.stringify(aUser({ urls: [HIDDEN, LOOKALIKE, IDN] })));
  for (const link of [HIDDEN, LOOKALIKE, IDN]) {
    localStorage.setItem(`visitors-${link.urlID}`, '[]');
  }
}

function items() {
  return within(screen.getByRole('list')).getAllByRole('listitem');
}

describe('Profile list: URLs as the redirect follows them', () => {
  it('shows the normalised URL, never the raw text with its hidden characters', () => {
    cacheUser();
    renderApp('/profile');
    const [hidden, lookalike, idn] = items().map((item) => item.querySelector('.link-item__url'));
    expect(hidden?.firstChild?.textContent).toBe(HIDDEN_NORMALISED);
    expect(hidden?.getAttribute('title')).toBe(HIDDEN_NORMALISED);
    expect(document.body.textContent).not.toContain('\u202E');
    expect(document.body.textContent).not.toContain('\u200B');
    expect(lookalike?.firstChild?.textContent).toBe('https://xn--pple-43d.com/signin?x=1');
    expect(idn?.firstChild?.textContent).toBe('https://例え.jp/%E3%83%91%E3%82%B9');
  });

  it("marks a host that mixes scripts with a 'mixed scripts' badge naming its punycode form", () => {
    cacheUser();
    renderApp('/profile');
    const [hidden, lookalike, idn] = items();
    const badge = within(lookalike as HTMLElement).getByRole('note', { name: /mixed scripts/ });
    expect(badge.textContent).toBe('mixed scripts');
    expect(badge.getAttribute('aria-label')).toContain('xn--pple-43d.com');
    for (const item of [hidden, idn]) {
      expect(within(item as HTMLElement).queryByRole('note')).toBeNull();
    }
  });
});

describe('Detail: the original URL as the redirect follows it', () => {
  it('links to the normalised URL and shows it, the query part styled apart', () => {
    cacheUser();
    renderApp('/profile/Hidden1');
    const original = within(screen.getByRole('heading', { level: 1 })).getByRole('link');
    expect(original.getAttribute('href')).toBe(HIDDEN_NORMALISED);
    expect(original.querySelector('.detail__base')?.textContent).toBe(
      'https://example.com/%E2%80%AEgpj.exe',
    );
    expect(original.querySelector('.detail__query')?.textContent).toBe('?q=%E2%80%8B');
    expect(screen.queryByRole('note', { name: /mixed scripts/ })).toBeNull();
  });

  it('marks a look-alike host, linking to its punycode form', () => {
    cacheUser();
    renderApp('/profile/Lookal1');
    const heading = screen.getByRole('heading', { level: 1 });
    const original = within(heading).getByRole('link');
    expect(original.getAttribute('href')).toBe('https://xn--pple-43d.com/signin?x=1');
    expect(original.querySelector('.detail__query')?.textContent).toBe('?x=1');
    expect(within(heading).getByRole('note', { name: /mixed scripts/ }).textContent).toBe(
      'mixed scripts',
    );
  });
});
