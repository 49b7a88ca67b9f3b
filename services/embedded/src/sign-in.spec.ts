import { chooseSignIn, chooseStackSignIn, isLoopbackAddress, SignInRefused } from './sign-in';

const laptop = {
  googleConfigured: false,
  loopbackOnly: true,
  host: undefined,
  LOCAL_SIGN_IN: undefined,
  NODE_ENV: undefined,
};

describe('who may sign in to the embedded mode', () => {
  it('offers the local sign-in when only this machine can reach the port', () => {
    expect(chooseSignIn(laptop)).toEqual({
      kind: 'local',
      why: 'local (no password), because it listens on loopback only',
    });
  });

  it('signs nobody in when others can reach the port, and says how to allow it', () => {
    expect(chooseSignIn({ ...laptop, loopbackOnly: false, host: '0.0.0.0' })).toEqual({
      kind: 'none',
      why:
        'none, because Google sign-in is not configured and HOST=0.0.0.0 is not loopback; set ' +
        'LOCAL_SIGN_IN=true to allow anyone who can reach this port to sign in as anyone',
    });
  });

  it.each(['true', 'TRUE', '1', 'yes'])('LOCAL_SIGN_IN=%s turns it on for any host', (value) => {
    expect(chooseSignIn({ ...laptop, loopbackOnly: false, LOCAL_SIGN_IN: value })).toEqual({
      kind: 'local',
      why: 'local (no password), because LOCAL_SIGN_IN=true; anyone who can reach this port can sign in as anyone',
    });
  });

  it('LOCAL_SIGN_IN=false turns it off even on loopback', () => {
    expect(chooseSignIn({ ...laptop, LOCAL_SIGN_IN: 'false' }).kind).toBe('none');
  });

  it('uses Google whenever it is configured', () => {
    expect(chooseSignIn({ ...laptop, googleConfigured: true }).kind).toBe('google');
    expect(chooseSignIn({ ...laptop, googleConfigured: true, LOCAL_SIGN_IN: 'true' })).toEqual({
      kind: 'google',
      why: 'Google (LOCAL_SIGN_IN is ignored while Google is configured)',
    });
    expect(chooseSignIn({ ...laptop, googleConfigured: true, NODE_ENV: 'production' }).kind).toBe(
      'google',
    );
  });

  it.each(['production', 'Production', 'PRODUCTION', 'prod', ' Prod '])(
    'refuses LOCAL_SIGN_IN=true with NODE_ENV=%s, with Google or without',
    (nodeEnv) => {
      for (const googleConfigured of [false, true]) {
        expect(() =>
          chooseSignIn({ ...laptop, googleConfigured, LOCAL_SIGN_IN: 'true', NODE_ENV: nodeEnv }),
        ).toThrow(new RegExp(`^LOCAL_SIGN_IN=true is refused when NODE_ENV=${nodeEnv.trim()}:`));
      }
    },
  );

  it('refuses production without Google, on loopback too', () => {
    expect(() => chooseSignIn({ ...laptop, NODE_ENV: 'prod' })).toThrow(
      'NODE_ENV=prod needs Google sign-in',
    );
  });

  it('refuses a LOCAL_SIGN_IN that is neither true nor false', () => {
    expect(() => chooseSignIn({ ...laptop, LOCAL_SIGN_IN: 'maybe' })).toThrow(SignInRefused);
  });

  it('knows loopback addresses as the server reports them', () => {
    expect(['127.0.0.1', '127.0.1.1', '::1', '::ffff:127.0.0.1'].map(isLoopbackAddress)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['0.0.0.0', '::', '192.0.2.2', 'fd00::2', 'localhost'].map(isLoopbackAddress)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('who may sign in to npm run stack', () => {
  const stack = { ...laptop, loopbackOnly: false, host: '0.0.0.0' };

  it('is Google only: nobody without it, even on loopback', () => {
    for (const settings of [stack, { ...stack, loopbackOnly: true, host: '127.0.0.1' }]) {
      expect(chooseStackSignIn(settings)).toEqual({
        kind: 'none',
        why: 'none, because Google sign-in is not configured (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)',
      });
    }
    expect(chooseStackSignIn({ ...stack, googleConfigured: true }).kind).toBe('google');
  });

  it.each(['true', 'YES', '1'])(
    'refuses LOCAL_SIGN_IN=%s beyond loopback, saying how to have it',
    (value) => {
      expect(() => chooseStackSignIn({ ...stack, LOCAL_SIGN_IN: value })).toThrow(
        new SignInRefused(
          'LOCAL_SIGN_IN=true is refused: the stack listens on 0.0.0.0, beyond this machine, ' +
            'where anyone who reaches it could sign in as anyone with no password. Set ' +
            'HOST=127.0.0.1 to try the local sign-in, or configure Google sign-in ' +
            '(GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)',
        ),
      );
    },
  );

  it('offers the local sign-in when asked for on loopback only; Google wins when configured', () => {
    const onLoopback = { ...stack, loopbackOnly: true, host: 'localhost', LOCAL_SIGN_IN: 'true' };
    expect(chooseStackSignIn(onLoopback)).toEqual({
      kind: 'local',
      why: 'local (no password), because LOCAL_SIGN_IN=true and the stack listens on loopback only',
    });
    expect(chooseStackSignIn({ ...stack, LOCAL_SIGN_IN: 'true', googleConfigured: true })).toEqual({
      kind: 'google',
      why: 'Google (LOCAL_SIGN_IN is ignored while Google is configured)',
    });
  });

  it('refuses LOCAL_SIGN_IN=true under NODE_ENV production, and a value that is not a boolean', () => {
    const onLoopback = { ...stack, loopbackOnly: true, LOCAL_SIGN_IN: 'true', NODE_ENV: 'prod' };
    expect(() => chooseStackSignIn(onLoopback)).toThrow(/refused when NODE_ENV=prod/);
    expect(() => chooseStackSignIn({ ...stack, LOCAL_SIGN_IN: 'maybe' })).toThrow(SignInRefused);
  });
});
