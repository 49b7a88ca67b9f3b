import { signInternalToken, verifyInternalToken } from './internal-auth';

const secret = 'a-secret-of-enough-length';

describe('internal tokens', () => {
  it('carries the identity of a signed request', () => {
    const token = signInternalToken(secret, { userId: 'user-1' }, 'GET', '/internal/links');
    expect(verifyInternalToken(secret, token, 'GET', '/internal/links')).toEqual({
      userId: 'user-1',
    });
    const anonymous = signInternalToken(secret, { userId: null }, 'POST', '/internal/links');
    expect(verifyInternalToken(secret, anonymous, 'POST', '/internal/links')).toEqual({
      userId: null,
    });
  });

  it('refuses a token for another request, another secret, a changed user or a stale time', () => {
    const now = Date.now();
    const token = signInternalToken(
      secret,
      { userId: 'user-1' },
      'GET',
      '/internal/links/abc',
      now,
    );
    expect(verifyInternalToken(secret, token, 'DELETE', '/internal/links/abc', now)).toBeNull();
    expect(verifyInternalToken(secret, token, 'GET', '/internal/links/xyz', now)).toBeNull();
    expect(
      verifyInternalToken('another-secret-value', token, 'GET', '/internal/links/abc', now),
    ).toBeNull();
    const [version, , issued, signature] = token.split('.');
    const forged = [version, Buffer.from('user-2').toString('base64url'), issued, signature].join(
      '.',
    );
    expect(verifyInternalToken(secret, forged, 'GET', '/internal/links/abc', now)).toBeNull();
    expect(
      verifyInternalToken(secret, token, 'GET', '/internal/links/abc', now + 61_000),
    ).toBeNull();
  });

  it.each([undefined, '', 'garbage', 'v1.a.b', 'v2.a.1.b'])('refuses %p', (token) => {
    expect(verifyInternalToken(secret, token, 'GET', '/x')).toBeNull();
  });
});
