import { localIdentity } from './local-sign-in';

describe('localIdentity', () => {
  it('signs in under the name given, case-insensitively the same user', () => {
    const first = localIdentity('  Ada   Lovelace ');
    const second = localIdentity('ada lovelace');
    expect(first).toEqual({
      ok: true,
      identity: {
        googleId: 'local:ada lovelace',
        fullName: 'Ada Lovelace',
        picture: '',
        email: null,
      },
    });
    expect(second.ok && second.identity.googleId).toBe('local:ada lovelace');
  });

  it.each([undefined, '', '   ', ['a', 'b'], 'x'.repeat(61), 'bad\u0000name'])(
    'refuses %p',
    (raw) => {
      expect(localIdentity(raw).ok).toBe(false);
    },
  );
});
