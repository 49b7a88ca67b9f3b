import { callbackFrom } from './callback-from';

const ORIGIN = 'https://short.example';

describe('callbackFrom', () => {
  it("takes the page's path from a same-origin Referer", () => {
    expect(callbackFrom(`${ORIGIN}/profile/abc1234`, ORIGIN)).toBe('/profile/abc1234');
    expect(callbackFrom(`${ORIGIN}/profile?x=1#top`, ORIGIN)).toBe('/profile?x=1');
    expect(callbackFrom(`${ORIGIN}/`, ORIGIN)).toBe('/');
  });

  it.each([
    ['no Referer', undefined],
    ['another site', 'https://evil.example/profile/abc'],
    ['another port', 'https://short.example:8443/profile'],
    ['plain http', 'http://short.example/profile/abc'],
    ['garbage', 'not a url'],
    ['a path browsers read as another host', `${ORIGIN}//evil.example`],
  ])('falls back to /profile for %s', (_what, referer) => {
    expect(callbackFrom(referer, ORIGIN)).toBe('/profile');
  });
});
