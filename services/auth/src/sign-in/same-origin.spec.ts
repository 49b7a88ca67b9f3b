import type { Request } from 'express';
import { fromOwnOrigin } from './same-origin';

const ORIGIN = 'https://short.example';

function request(headers: Record<string, string>): Request {
  return { header: (name: string) => headers[name.toLowerCase()] } as unknown as Request;
}

describe('fromOwnOrigin', () => {
  it.each([
    ['its own Origin', { origin: ORIGIN }],
    ['Sec-Fetch-Site same-origin without Origin', { 'sec-fetch-site': 'same-origin' }],
    ['neither header (not a browser)', {}],
  ])('accepts %s', (_what, headers) => {
    expect(fromOwnOrigin(request(headers), `${ORIGIN}/`)).toBe(true);
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
    expect(fromOwnOrigin(request(headers), ORIGIN)).toBe(false);
  });
});
