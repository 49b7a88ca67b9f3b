import { createHmac } from 'node:crypto';
import {
  acceptedSecrets,
  signInternalToken,
  UsedNonces,
  verifyInternalToken,
} from './internal-auth';

const secret = 'a-secret-of-enough-length';
const create = { method: 'POST', path: '/internal/links', body: '{"url":"https://a.example/"}' };

/** A token of the first format: user, time, method and path, no body, no nonce. */
function v1Token(userId: string, method: string, path: string, issuedAt: number): string {
  const signature = createHmac('sha256', secret)
    .update(`${userId}\n${issuedAt}\n${method}\n${path}`)
    .digest('base64url');
  return `v1.${Buffer.from(userId).toString('base64url')}.${issuedAt}.${signature}`;
}

describe('internal tokens', () => {
  it('carries the identity of a signed request, with or without a body', () => {
    const token = signInternalToken(secret, { userId: 'user-1' }, { method: 'GET', path: '/x' });
    expect(verifyInternalToken(secret, token, { method: 'GET', path: '/x' })?.identity).toEqual({
      userId: 'user-1',
    });
    const anonymous = signInternalToken(secret, { userId: null }, create);
    expect(verifyInternalToken(secret, anonymous, create)?.identity).toEqual({ userId: null });
    const bytes = { ...create, body: Buffer.from(create.body) };
    expect(verifyInternalToken(secret, anonymous, bytes)?.identity).toEqual({ userId: null });
  });

  it('accepts, while a secret is rotated, a token signed with either of the secrets it is given', () => {
    const now = Date.now();
    const request = { method: 'GET', path: '/internal/links/abc' };
    const next = 'the-next-secret-of-enough-length';
    const rotating = acceptedSecrets({
      INTERNAL_API_SECRET: next,
      INTERNAL_API_SECRET_PREVIOUS: secret,
    });
    for (const signer of [secret, next]) {
      const token = signInternalToken(signer, { userId: 'user-1' }, request, now);
      expect(verifyInternalToken(rotating, token, request, now)?.identity).toEqual({
        userId: 'user-1',
      });
    }
    const settled = acceptedSecrets({ INTERNAL_API_SECRET: next });
    const old = signInternalToken(secret, { userId: 'user-1' }, request, now);
    expect(verifyInternalToken(settled, old, request, now)).toBeNull();
    const other = signInternalToken('a-third-secret-of-any-length', { userId: null }, request, now);
    expect(verifyInternalToken(rotating, other, request, now)).toBeNull();
  });

  it('refuses a token for another request, another secret or a changed user', () => {
    const now = Date.now();
    const request = { method: 'GET', path: '/internal/links/abc' };
    const token = signInternalToken(secret, { userId: 'user-1' }, request, now);
    expect(verifyInternalToken(secret, token, { ...request, method: 'DELETE' }, now)).toBeNull();
    expect(
      verifyInternalToken(secret, token, { ...request, path: '/internal/links/xyz' }, now),
    ).toBeNull();
    expect(verifyInternalToken('another-secret-value', token, request, now)).toBeNull();
    const [version, , ...rest] = token.split('.');
    const forged = [version, Buffer.from('user-2').toString('base64url'), ...rest].join('.');
    expect(verifyInternalToken(secret, forged, request, now)).toBeNull();
  });

  it('refuses a body other than the one signed, and a body where none was signed', () => {
    const token = signInternalToken(secret, { userId: 'user-1' }, create);
    expect(
      verifyInternalToken(secret, token, { ...create, body: '{"url":"https://b.example/"}' }),
    ).toBeNull();
    expect(verifyInternalToken(secret, token, { ...create, body: undefined })).toBeNull();
    const empty = signInternalToken(secret, { userId: 'user-1' }, { ...create, body: undefined });
    expect(verifyInternalToken(secret, empty, create)).toBeNull();
    // An empty body and no body are the same bytes.
    expect(verifyInternalToken(secret, empty, { ...create, body: '' })).not.toBeNull();
  });

  it('lives about ten seconds, allowing a little clock skew', () => {
    const now = Date.now();
    const token = signInternalToken(secret, { userId: null }, create, now);
    expect(verifyInternalToken(secret, token, create, now + 9_000)).not.toBeNull();
    expect(verifyInternalToken(secret, token, create, now + 11_000)).toBeNull();
    expect(verifyInternalToken(secret, token, create, now - 4_000)).not.toBeNull();
    expect(verifyInternalToken(secret, token, create, now - 6_000)).toBeNull();
  });

  it('carries a fresh nonce each time, and expires when the token does', () => {
    const now = Date.now();
    const first = verifyInternalToken(
      secret,
      signInternalToken(secret, { userId: null }, create, now),
      create,
    );
    const second = verifyInternalToken(
      secret,
      signInternalToken(secret, { userId: null }, create, now),
      create,
    );
    expect(first?.nonce).toMatch(/^[\w-]{22}$/);
    expect(second?.nonce).not.toBe(first?.nonce);
    expect(first?.expiresAt).toBe(now + 10_000);
  });

  it.each([undefined, '', 'garbage', 'v1.a.b', 'v2.a.1.b', 'v2.a.1.n.s', 'v3.a.1.n.s'])(
    'refuses %p',
    (token) => {
      expect(verifyInternalToken(secret, token, { method: 'GET', path: '/x' })).toBeNull();
    },
  );

  it('refuses a token of the first format, even a fresh and correctly signed one', () => {
    const token = v1Token('user-1', 'GET', '/internal/links', Date.now());
    expect(
      verifyInternalToken(secret, token, { method: 'GET', path: '/internal/links' }),
    ).toBeNull();
  });
});

describe('used nonces', () => {
  it('takes a nonce once until it expires', () => {
    const nonces = new UsedNonces();
    expect(nonces.claim('n-1', 1_000, 0)).toBe(true);
    expect(nonces.claim('n-1', 1_000, 500)).toBe(false);
    expect(nonces.claim('n-2', 1_000, 500)).toBe(true);
    // Past its expiry the token itself is refused as stale; the nonce may be forgotten.
    expect(nonces.claim('n-3', 2_000, 1_500)).toBe(true);
    expect(nonces.size).toBe(1);
  });

  it('refuses every nonce while full of unexpired ones, rather than forget one', () => {
    const nonces = new UsedNonces(2);
    expect(nonces.claim('a', 1_000, 0)).toBe(true);
    expect(nonces.claim('b', 1_000, 0)).toBe(true);
    expect(nonces.claim('c', 1_000, 10)).toBe(false);
    expect(nonces.claim('a', 1_000, 10)).toBe(false);
    expect(nonces.claim('c', 2_000, 1_000)).toBe(true);
  });
});
