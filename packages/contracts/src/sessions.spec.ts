import { safeReturnPath, sessionCookieName, signInLink } from './sessions';

describe('safeReturnPath', () => {
  it.each([
    ['/profile', '/profile'],
    ['/profile/abc1234', '/profile/abc1234'],
    ['/profile?tab=1#top', '/profile?tab=1#top'],
    ['/a/../profile', '/profile'],
    ['/%2F/evil.example', '/%2F/evil.example'],
    ['/caf\u00e9', '/caf%C3%A9'],
  ])('keeps the same-site path %j', (raw, expected) => {
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
