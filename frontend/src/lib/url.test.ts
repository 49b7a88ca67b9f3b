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

  it('takes a bare domain as https (issue 37)', () => {
    expect(toAbsoluteUrl('example.com')).toBe('https://example.com');
    expect(toAbsoluteUrl(' www.example.com/x?y=1#z ')).toBe('https://www.example.com/x?y=1#z');
    expect(toAbsoluteUrl('example.com:8080/a')).toBe('https://example.com:8080/a');
    expect(toAbsoluteUrl('bücher.example/ä')).toBe('https://bücher.example/ä');
  });

  it('rejects what is not an absolute http(s) URL', () => {
    for (const text of [
      '',
      '   ',
      'example',
      'localhost:3000',
      '/relative/path',
      'http//x',
      'javascript:alert(1)',
      'mailto:a@example.com',
      'ftp://example.com/x',
      'a@b.c',
      'example.com/a b',
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
