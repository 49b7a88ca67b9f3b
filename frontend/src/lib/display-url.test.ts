import { describe, expect, it } from 'vitest';
import { displayUrl, mixesScripts, URL_END_LENGTH, urlParts } from './display-url';

describe('displayUrl', () => {
  it('shows where the redirect goes: invisible and right-to-left characters percent-encoded', () => {
    const raw = 'https://ex\u200Bample.com/\u202Egpj.exe?q=\u200B';
    expect(displayUrl(raw)).toEqual({
      href: 'https://example.com/%E2%80%AEgpj.exe?q=%E2%80%8B',
      text: 'https://example.com/%E2%80%AEgpj.exe?q=%E2%80%8B',
      mixedScriptHost: null,
    });
  });

  it('writes an internationalised host in Unicode, linking to its punycode form', () => {
    expect(displayUrl('https://例え.jp/パス?q=1')).toEqual({
      href: 'https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9?q=1',
      text: 'https://例え.jp/%E3%83%91%E3%82%B9?q=1',
      mixedScriptHost: null,
    });
    expect(displayUrl('http://BÜCHER.example:8080/').text).toBe('http://bücher.example:8080/');
    expect(displayUrl('https://xn--e1afmkfd.xn--p1ai/').text).toBe('https://пример.рф/');
  });

  it('keeps a host that mixes scripts in punycode, and says so', () => {
    expect(displayUrl('https://\u0430pple.com/login')).toEqual({
      href: 'https://xn--pple-43d.com/login',
      text: 'https://xn--pple-43d.com/login',
      mixedScriptHost: 'xn--pple-43d.com',
    });
    // Typed in punycode it is the same host.
    expect(displayUrl('https://xn--pple-43d.com/').mixedScriptHost).toBe('xn--pple-43d.com');
  });

  it('leaves plain URLs as the server normalises them', () => {
    expect(displayUrl('HTTPS://Example.COM')).toEqual({
      href: 'https://example.com/',
      text: 'https://example.com/',
      mixedScriptHost: null,
    });
    expect(displayUrl('not a url')).toEqual({
      href: 'not a url',
      text: 'not a url',
      mixedScriptHost: null,
    });
  });
});

describe('mixesScripts', () => {
  it.each([
    ['\u0430pple', true],
    ['p\u0430ypal', true],
    ['g\u03bfogle', true],
    ['example', false],
    ['пример', false],
    ['bücher', false],
    ['例え', false],
    ['東京タワー', false],
    ['sony日本', false],
    ['한국abc', false],
    ['abc-123', false],
    ['пример-1', false],
  ])('%s: %s', (label, mixed) => {
    expect(mixesScripts(label)).toBe(mixed);
  });
});

describe('urlParts', () => {
  it('splits a shown URL into its scheme, its host, a middle that may give way, and its end', () => {
    expect(urlParts('https://docs.example.org/guides/2026/chapter-one')).toEqual({
      scheme: 'https://',
      host: 'docs.example.org',
      middle: '/guides/2026',
      end: '/chapter-one',
    });
    expect(urlParts('http://landing.test:4000/landing?journey=a&run=b')).toEqual({
      scheme: 'http://',
      host: 'landing.test:4000',
      middle: '',
      end: '/landing?journey=a&run=b',
    });
  });

  it('keeps the host whole and apart, so a long path is cut after it, not inside it', () => {
    // Issue 28: at 390 px this read "githu… uesturl-options-callback".
    const url =
      'https://github.com/expressjs/cors/blob/master/README.md#configuring-cors-w-dynamic-origin-requesturl-options-callback';
    const { host, middle, end } = urlParts(url);
    expect(host).toBe('github.com');
    expect(middle.startsWith('/expressjs/cors')).toBe(true);
    expect(end.length).toBeLessThanOrEqual(URL_END_LENGTH);
    expect(`https://${host}${middle}${end}`).toBe(url);
  });

  it('has an empty middle and end when the path is empty', () => {
    expect(urlParts('https://example.com/')).toEqual({
      scheme: 'https://',
      host: 'example.com',
      middle: '',
      end: '/',
    });
    expect(urlParts('https://example.com')).toEqual({
      scheme: 'https://',
      host: 'example.com',
      middle: '',
      end: '',
    });
  });

  it('keeps only the last characters of a long end, and every character overall', () => {
    const url = `https://example.com/search?q=${'x'.repeat(60)}`;
    const { scheme, host, middle, end } = urlParts(url);
    expect(end).toHaveLength(URL_END_LENGTH);
    expect(url.endsWith(end)).toBe(true);
    expect(scheme + host + middle + end).toBe(url);
  });
});
