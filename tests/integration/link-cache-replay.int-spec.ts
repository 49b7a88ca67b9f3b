import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { InternalClient } from '@shortener/chassis';
import { internalApi, type InternalLink } from '@shortener/contracts';
import { startStack, testServers, waitFor, type Stack } from '@shortener/testkit';

// A signed link cache entry replayed into Redis (issue 37, item 6): an older entry of the same
// code, written by the links service itself and so rightly signed, put back after the link
// changed. Real Redis, links and redirect; the redirect remembers nothing in memory here, so
// every request reads Redis.

describe('an older entry of the same code replayed into the link cache', () => {
  const owner = { userId: `replay-${randomUUID()}` };
  let stack: Stack;
  let redis: Redis;
  let links: InternalClient;

  const redirect = (code: string): Promise<Response> =>
    fetch(`${stack.get('redirect').url}/r/${code}`, { redirect: 'manual' });
  /** What the redirect answers: the status and where it sends. */
  const answer = async (code: string): Promise<{ status: number; location: string | null }> => {
    const response = await redirect(code);
    return { status: response.status, location: response.headers.get('location') };
  };

  async function createLink(url: string): Promise<InternalLink> {
    const response = await links.call(internalApi.createLink, {
      identity: owner,
      body: { url, days: 30 },
    });
    if (response.status !== 201) throw new Error(`not created: ${response.status}`);
    return response.body;
  }

  /** The entry Redis holds for the code now, once there is one. */
  const entry = (code: string): Promise<string> =>
    waitFor(async () => (await redis.get(`link:${code}`)) ?? false, {
      what: `link:${code} in Redis`,
      timeoutMs: 5000,
    });

  beforeAll(async () => {
    stack = await startStack({
      services: ['links', 'redirect'],
      serviceEnv: { redirect: { LOCAL_CACHE_TTL_MS: '0', NEGATIVE_CACHE_TTL_MS: '0' } },
    });
    redis = new Redis(testServers.redisUrl);
    links = new InternalClient('links', stack.get('links').url, stack.secret);
  });

  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
  });

  it('never revives a deleted link from its old live entry: 404, as the links service says', async () => {
    const link = await createLink(`https://example.com/replay/deleted/${randomUUID()}`);
    expect(await answer(link.urlID)).toEqual({ status: 302, location: link.originalUrl });
    const live = await entry(link.urlID);

    const params = { code: link.urlID };
    expect((await links.call(internalApi.deleteLink, { identity: owner, params })).status).toBe(
      204,
    );
    expect((await answer(link.urlID)).status).toBe(404);

    await redis.set(`link:${link.urlID}`, live);
    expect(await answer(link.urlID)).toEqual({ status: 404, location: null });
    // Still so once the gone marker would have gone too: the replayed entry never counts.
    await redis.set(`link:${link.urlID}`, live);
    expect(await answer(link.urlID)).toEqual({ status: 404, location: null });
  });

  it('never undoes an edit with the entry from before it: the new destination', async () => {
    const link = await createLink(`https://example.com/replay/before/${randomUUID()}`);
    expect(await answer(link.urlID)).toEqual({ status: 302, location: link.originalUrl });
    const before = await entry(link.urlID);

    const edited = `https://example.com/replay/after/${randomUUID()}`;
    const params = { code: link.urlID };
    const response = await links.call(internalApi.updateLink, {
      identity: owner,
      params,
      body: { url: edited },
    });
    expect(response.status).toBe(200);
    expect(await answer(link.urlID)).toEqual({ status: 302, location: edited });

    await redis.set(`link:${link.urlID}`, before);
    expect(await answer(link.urlID)).toEqual({ status: 302, location: edited });
    // The true entry is back in Redis for everyone else.
    await waitFor(async () => (await redis.get(`link:${link.urlID}`))?.includes(edited) ?? false, {
      what: 'the current entry written back',
      timeoutMs: 5000,
    });
  });

  it('never takes a restored link for deleted from its old gone marker', async () => {
    const link = await createLink(`https://example.com/replay/restored/${randomUUID()}`);
    const params = { code: link.urlID };
    expect((await links.call(internalApi.deleteLink, { identity: owner, params })).status).toBe(
      204,
    );
    expect((await answer(link.urlID)).status).toBe(404);
    const gone = await entry(link.urlID);

    const restored = await links.call(internalApi.restoreLink, { identity: owner, params });
    expect(restored.status).toBe(200);
    expect(await answer(link.urlID)).toEqual({ status: 302, location: link.originalUrl });

    await redis.set(`link:${link.urlID}`, gone, 'PX', 60_000);
    expect(await answer(link.urlID)).toEqual({ status: 302, location: link.originalUrl });
  });
});
