import { identityFromUserinfo } from './google-identity';

describe('identityFromUserinfo', () => {
  it('keeps the subject, name, picture and email of an OpenID userinfo answer', () => {
    expect(
      identityFromUserinfo({
        sub: '1077',
        name: 'Alice Example',
        picture: 'https://lh3.googleusercontent.com/a/x',
        email: 'alice@example.com',
        email_verified: true,
      }),
    ).toEqual({
      googleId: '1077',
      fullName: 'Alice Example',
      picture: 'https://lh3.googleusercontent.com/a/x',
      email: 'alice@example.com',
    });
  });

  it("keeps no control character of the provider's answer, which PostgreSQL would refuse (NUL)", () => {
    expect(
      identityFromUserinfo({
        sub: '1077',
        name: 'Alice\u0000 Ex\nample',
        email: 'alice\u0000@example.com',
        picture: 'https://lh3.googleusercontent.com/a/x\u0000',
      }),
    ).toEqual({
      googleId: '1077',
      fullName: 'Alice Ex ample',
      picture: '',
      email: 'alice@example.com',
    });
    expect(identityFromUserinfo({ sub: '10\u000077', name: 'Alice' })).toBeNull();
  });

  it('builds a name from the given and family names, then the email', () => {
    expect(identityFromUserinfo({ sub: '1', given_name: 'Ada', family_name: 'L' })?.fullName).toBe(
      'Ada L',
    );
    expect(identityFromUserinfo({ sub: '1', email: 'ada@example.com' })?.fullName).toBe(
      'ada@example.com',
    );
  });

  it.each(['javascript:alert(1)', 'data:image/png;base64,AAAA', 'not a url'])(
    'drops a picture that is not a web address (%s)',
    (picture) => {
      expect(identityFromUserinfo({ sub: '1', name: 'A', picture })?.picture).toBe('');
    },
  );

  it.each([{}, { sub: '' }, null, 'text', { sub: 'x'.repeat(256) }])(
    'names no one for %j',
    (json) => {
      expect(identityFromUserinfo(json)).toBeNull();
    },
  );
});
