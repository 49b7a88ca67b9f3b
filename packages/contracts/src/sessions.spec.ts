import { safeReturnPath, sessionCookieName, signInLink } from './sessions';

describe('safeReturnPath', () => {
  it.each([
    ['/profile', '/profile'],
    ['/profile/abc1234', '/profile/abc1234'],
    ['/profile?tab=1#top', '/profile?tab=1#top'],
    ['/a/../profile', '/profile'],
    ['/profile/caf\u00e9', '/profile/caf%C3%A9'],
    ['/tc', '/tc'],
    ['/privacy_policy', '/privacy_policy'],
    ['/', '/'],
  ])('keeps the web app page %j', (raw, expected) => {
    expect(safeReturnPath(raw)).toBe(expected);
  });

  it.each([
    'https://evil.example',
    'https://evil.example/profile',
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/profile\\..\\..\\evil',
    'javascript:alert(1)',
    'profile',
    '/\t/evil.example',
    '/\n/evil.example',
    '/profile\u0000',
    '',
  ])('turns the off-site or malformed %j into /', (raw) => {
    expect(safeReturnPath(raw)).toBe('/');
  });

  // A sign-in link must not end off-site through one of our own short links, nor on an API
  // answer or another server route: `from` names only the web app's own pages.
  it.each([
    '/r/abc1234',
    '/R/abc1234',
    '/a/../r/abc1234',
    '/%72/abc1234',
    '/api/user',
    '/login',
    '/logout',
    '/auth/google/callback?code=1',
    '/docs',
    '/profile/abc1234/extra',
    '/%2F/evil.example',
    '/caf\u00e9',
  ])('turns %j, which is not a page of the web app, into /', (raw) => {
    expect(safeReturnPath(raw)).toBe('/');
  });

  it('turns a path longer than 2,048 characters into /', () => {
    expect(safeReturnPath('/' + 'a'.repeat(3000))).toBe('/');
  });

  it('turns anything that is not one string into /', () => {
    expect(safeReturnPath(undefined)).toBe('/');
    expect(safeReturnPath(['/profile', '/x'])).toBe('/');
    expect(safeReturnPath({ from: '/profile' })).toBe('/');
  });
});

describe('signInLink', () => {
  it('encodes the path it returns to', () => {
    expect(signInLink('/profile/abc?x=1&y=2')).toBe('/login?from=%2Fprofile%2Fabc%3Fx%3D1%26y%3D2');
    expect(signInLink('//evil.example')).toBe('/login?from=%2F');
  });
});

describe('sessionCookieName', () => {
  it('is __Host-sid behind https and sid over plain http', () => {
    expect(sessionCookieName(true)).toBe('__Host-sid');
    expect(sessionCookieName(false)).toBe('sid');
  });
});
