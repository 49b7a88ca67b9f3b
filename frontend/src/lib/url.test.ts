import { describe, expect, it } from 'vitest';
import { isWebUrl, shortLinkFor, splitQuery, toAbsoluteUrl } from './url';

describe('toAbsoluteUrl (SPEC section 5)', () => {
  it('accepts what parses as an absolute URL', () => {
    expect(toAbsoluteUrl('https://example.com')).toBe('https://example.com');
    expect(toAbsoluteUrl('http://localhost:3000/a?b=c#d')).toBe('http://localhost:3000/a?b=c#d');
  });

  it('trims the whitespace and line breaks pasting brings along', () => {
    expect(toAbsoluteUrl('  https://example.com/page \n')).toBe('https://example.com/page');
    expect(toAbsoluteUrl('\r\n\thttps://example.com\t')).toBe('https://example.com');
  });

  it('rejects what is not an absolute URL', () => {
    for (const text of [
      '',
      '   ',
      'example.com',
      '/relative/path',
      'www.example.com/x',
      'http//x',
    ]) {
      expect(toAbsoluteUrl(text)).toBeNull();
    }
  });
});

describe('shortLinkFor', () => {
  it('builds {origin}/r/{code}', () => {
    expect(shortLinkFor('Ab3dE5g', 'https://sho.rt')).toBe('https://sho.rt/r/Ab3dE5g');
    expect(shortLinkFor('Ab3dE5g')).toBe(`${window.location.origin}/r/Ab3dE5g`);
  });
});

describe('splitQuery', () => {
  it('splits at the first question mark', () => {
    expect(splitQuery('https://a.com/p?x=1?y=2')).toEqual({
      base: 'https://a.com/p',
      query: '?x=1?y=2',
    });
    expect(splitQuery('https://a.com/p')).toEqual({ base: 'https://a.com/p', query: '' });
  });
});

describe('isWebUrl', () => {
  it('only lets http and https through as links', () => {
    expect(isWebUrl('https://a.com')).toBe(true);
    expect(isWebUrl('http://a.com')).toBe(true);
    expect(isWebUrl('javascript:alert(1)')).toBe(false);
    expect(isWebUrl('not a url')).toBe(false);
  });
});
