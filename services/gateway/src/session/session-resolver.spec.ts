import { BadGatewayException, ServiceUnavailableException } from '@nestjs/common';
import { InternalClient, InternalServiceError } from '@shortener/chassis';
import type { GatewayConfig } from '../config';
import { SessionResolver } from './session-resolver';

const SESSION = 'S'.repeat(43);
const USER = { id: 'user-1', fullName: 'Alice', profilePicture: '' };

/** A real client whose exchanges with the auth service are `answer`. */
function resolverWith(answer: () => Promise<{ status: number; body: unknown }>, cacheMs = 5000) {
  const auth = new InternalClient('auth', 'http://auth.invalid', 'unused');
  const request = jest.spyOn(auth, 'request').mockImplementation(answer);
  const resolver = new SessionResolver(auth, { SESSION_CACHE_MS: cacheMs } as GatewayConfig);
  return { resolver, request };
}

const found = () => Promise.resolve({ status: 200, body: { user: USER, expiresAt: Date.now() } });

describe('SessionResolver', () => {
  it('resolves a session through the auth service, signed as anonymous, the id in the body', async () => {
    const { resolver, request } = resolverWith(found);
    expect(await resolver.resolve(SESSION, 'req-1')).toEqual(USER);
    expect(request).toHaveBeenCalledWith('POST', '/internal/sessions/lookup', {
      identity: { userId: null },
      requestId: 'req-1',
      body: { sessionId: SESSION },
    });
  });

  it('asks once for a burst of calls, and again after forget()', async () => {
    const { resolver, request } = resolverWith(found);
    await Promise.all([resolver.resolve(SESSION), resolver.resolve(SESSION)]);
    await resolver.resolve(SESSION);
    expect(request).toHaveBeenCalledTimes(1);
    resolver.forget(SESSION);
    await resolver.resolve(SESSION);
    expect(request).toHaveBeenCalledTimes(2);
  });

  it('asks every time when the cache is off', async () => {
    const { resolver, request } = resolverWith(found, 0);
    await resolver.resolve(SESSION);
    await resolver.resolve(SESSION);
    expect(request).toHaveBeenCalledTimes(2);
  });

  it('remembers at most 10,000 sessions, the least recently used out first', async () => {
    const { resolver, request } = resolverWith(found);
    const id = (n: number): string => String(n).padStart(43, 'S');
    for (let n = 0; n < 10_000; n += 1) await resolver.resolve(id(n));
    await resolver.resolve(id(0)); // read again: now the most recent
    await resolver.resolve(id(10_000)); // one more evicts the least recent, id(1)
    expect(request).toHaveBeenCalledTimes(10_001);
    await resolver.resolve(id(0));
    expect(request).toHaveBeenCalledTimes(10_001);
    await resolver.resolve(id(1));
    expect(request).toHaveBeenCalledTimes(10_002);
  });

  it('treats an unknown or expired session (404) as nobody', async () => {
    const { resolver } = resolverWith(() =>
      Promise.resolve({ status: 404, body: { message: 'No such session, or it has expired' } }),
    );
    expect(await resolver.resolve(SESSION)).toBeNull();
  });

  it.each([
    ['a user without a name', { user: { id: 'user-1', profilePicture: '' }, expiresAt: 1 }],
    ['no user', { expiresAt: 1 }],
    ['a 404 without its message', undefined],
  ])('fails with a 502 on a lookup answer with %s, never a user', async (_what, body) => {
    const status = body === undefined ? 404 : 200;
    const { resolver } = resolverWith(() => Promise.resolve({ status, body: body ?? {} }));
    await expect(resolver.resolve(SESSION)).rejects.toThrow(BadGatewayException);
  });

  it.each([undefined, '', 'short', `${SESSION}x`, 'S'.repeat(42) + '!', ['a', 'b']])(
    'never asks about a malformed cookie %j',
    async (cookie) => {
      const { resolver, request } = resolverWith(found);
      expect(await resolver.resolve(cookie)).toBeNull();
      expect(request).not.toHaveBeenCalled();
    },
  );

  it('fails (instead of signing the user out) when the auth service cannot answer, and retries next time', async () => {
    let calls = 0;
    const { resolver } = resolverWith(() => {
      calls += 1;
      return calls === 1
        ? Promise.reject(new InternalServiceError('auth', 'ECONNREFUSED'))
        : found();
    });
    await expect(resolver.resolve(SESSION)).rejects.toThrow(ServiceUnavailableException);
    expect(await resolver.resolve(SESSION)).toEqual(USER);
  });
});
