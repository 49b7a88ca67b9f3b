import { fromOwnOrigin } from './same-origin';

const ORIGIN = 'https://short.example';

describe('fromOwnOrigin', () => {
  it.each([
    ['its own Origin', { origin: ORIGIN }],
    ['Sec-Fetch-Site same-origin without Origin', { 'sec-fetch-site': 'same-origin' }],
    ['neither header (not a browser)', {}],
  ])('accepts %s', (_what, headers) => {
    expect(fromOwnOrigin(headers, `${ORIGIN}/`)).toBe(true);
  });

  it.each([
    ['another site', { origin: 'https://evil.example' }],
    ['plain http', { origin: 'http://short.example' }],
    ['another port', { origin: 'https://short.example:8443' }],
    ['a subdomain', { origin: 'https://a.short.example' }],
    ['an opaque origin', { origin: 'null' }],
    ['a cross-site request', { 'sec-fetch-site': 'cross-site' }],
    ['a same-site request', { 'sec-fetch-site': 'same-site' }],
    ['a typed address', { 'sec-fetch-site': 'none' }],
    [
      'another Origin, whatever Sec-Fetch-Site says',
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
    ],
  ])('refuses %s', (_what, headers) => {
    expect(fromOwnOrigin(headers, ORIGIN)).toBe(false);
  });

  describe('for the live stream', () => {
    const origin = 'http://localhost:8080';
    it('takes our own pages, and clients that name no site', () => {
      expect(fromOwnOrigin({ 'sec-fetch-site': 'same-origin', origin }, origin)).toBe(true);
      expect(fromOwnOrigin({}, origin)).toBe(true);
    });
    it('refuses another site, whichever header says so', () => {
      expect(fromOwnOrigin({ 'sec-fetch-site': 'cross-site' }, origin)).toBe(false);
      expect(fromOwnOrigin({ 'sec-fetch-site': 'same-site' }, origin)).toBe(false);
      expect(fromOwnOrigin({ origin: 'https://evil.example' }, origin)).toBe(false);
      expect(
        fromOwnOrigin({ 'sec-fetch-site': 'same-origin', origin: 'http://localhost:8081' }, origin),
      ).toBe(false);
    });
  });
});
