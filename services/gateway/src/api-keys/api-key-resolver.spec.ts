import { InternalClient } from '@shortener/chassis';
import type { ApiKeyCaller } from '@shortener/contracts';
import type { GatewayConfig } from '../config';
import { ApiKeyResolver } from './api-key-resolver';
import { InProcessKeyRevocations, type KeyRevocations } from './key-revocations';

const KEY = `shk_${'A'.repeat(10)}_${'s'.repeat(40)}`;
const OTHER = `shk_${'B'.repeat(10)}_${'s'.repeat(40)}`;
const caller = (keyId: string): ApiKeyCaller => ({
  user: { id: 'user-1', fullName: 'Alice', profilePicture: '' },
  keyId,
  scopes: ['links:read'],
});

/** Revocations whose listening can be switched, and whose resumption can be played. */
class SwitchedRevocations extends InProcessKeyRevocations {
  on = true;
  private readonly resumedListeners: (() => void)[] = [];
  override listening(): boolean {
    return this.on;
  }
  override onResumed(listener: () => void): void {
    this.resumedListeners.push(listener);
  }
  resume(): void {
    this.on = true;
    for (const listener of this.resumedListeners) listener();
  }
}

function resolverWith(
  revocations: KeyRevocations = new InProcessKeyRevocations(),
  cacheMs = 60_000,
) {
  const auth = new InternalClient('auth', 'http://auth.invalid', 'unused');
  const request = jest.spyOn(auth, 'request').mockImplementation((_method, _path, options) => {
    const key = (options?.body as { key: string }).key;
    return Promise.resolve({ status: 200, body: caller(key.slice(4, 14)) });
  });
  const resolver = new ApiKeyResolver(
    auth,
    { API_KEY_CACHE_MS: cacheMs } as GatewayConfig,
    revocations,
  );
  return { resolver, request };
}

describe('ApiKeyResolver', () => {
  it('looks a key up once, then remembers it', async () => {
    const { resolver, request } = resolverWith();
    expect(await resolver.resolve(KEY)).toEqual(caller('AAAAAAAAAA'));
    await resolver.resolve(KEY);
    expect(request).toHaveBeenCalledTimes(1);
    expect(request).toHaveBeenCalledWith('POST', '/internal/api-keys/lookup', {
      identity: { userId: null },
      requestId: undefined,
      body: { key: KEY },
    });
  });

  it('forgets a key at once when its revocation is announced, and only that key', async () => {
    const revocations = new InProcessKeyRevocations();
    const { resolver, request } = resolverWith(revocations);
    await resolver.resolve(KEY);
    await resolver.resolve(OTHER);
    await revocations.announce('AAAAAAAAAA');
    await resolver.resolve(KEY);
    await resolver.resolve(OTHER);
    expect(request).toHaveBeenCalledTimes(3);
  });

  it('remembers nothing while revocations cannot be heard, and forgets all when they can again', async () => {
    const revocations = new SwitchedRevocations();
    const { resolver, request } = resolverWith(revocations);
    await resolver.resolve(KEY);
    revocations.on = false;
    await resolver.resolve(KEY);
    await resolver.resolve(KEY);
    expect(request).toHaveBeenCalledTimes(3);
    revocations.resume();
    await resolver.resolve(KEY);
    await resolver.resolve(KEY);
    expect(request).toHaveBeenCalledTimes(4);
  });

  it.each(['', 'Bearer', `${KEY}x`, KEY.replace('shk_', 'ghp_'), 'x'.repeat(10_000)])(
    'never asks about a malformed key %#',
    async (key) => {
      const { resolver, request } = resolverWith();
      expect(await resolver.resolve(key)).toBeNull();
      expect(request).not.toHaveBeenCalled();
    },
  );
});
