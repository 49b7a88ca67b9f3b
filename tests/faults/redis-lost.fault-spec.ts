import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { hostPort, TcpProxy, testServers, viaPort } from '@shortener/testkit';
import { RedirectLoad } from './support/load';
import {
  createLinks,
  expectStoredOnce,
  FaultStack,
  percent302,
  report,
  settle,
} from './support/scenario';

// Scenario 4: Redis is flushed under load, then "restarted": unreachable for a few seconds
// (a proxy the test cuts; the machine's Redis keeps running) and back empty. The links
// service is the system of record and refills Redis, so redirects go on and every link still
// resolves afterwards.

describe('scenario 4: Redis flushed, then restarted, under load', () => {
  let load: RedirectLoad | undefined;
  let stack: FaultStack | undefined;
  let proxy: TcpProxy | undefined;
  let redis: Redis | undefined;

  beforeAll(async () => {
    proxy = await new TcpProxy(hostPort(testServers.redisUrl)).listen();
    // Both writers and readers of the link cache go through the proxy.
    stack = await FaultStack.startReady('redis-lost', {
      env: { REDIS_URL: viaPort(testServers.redisUrl, proxy.port) },
    });
    redis = new Redis(testServers.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });

  afterAll(async () => {
    await load?.stop();
    proxy?.restore();
    await stack?.stop();
    await proxy?.close();
    await redis?.quit();
  });

  it('keeps redirecting from the links service and refills Redis', async () => {
    const redirect = stack!.get('redirect');
    const expected = await createLinks(stack!.client('links'), 'redis-lost');
    load = new RedirectLoad({
      targets: [redirect.url],
      expected,
      ratePerSecond: 500,
      durationMs: 15_000,
    });
    await sleep(3000);
    await redis!.flushdb();
    await sleep(3000);
    proxy!.cut();
    try {
      // A restarted Redis without persistence comes back empty.
      await sleep(1000);
      await redis!.flushdb();
      await sleep(3000);
    } finally {
      proxy!.restore();
    }
    const result = await load.done;

    // Afterwards every link resolves, and Redis holds each one again.
    const after = await Promise.all(
      [...expected].map(async ([code, url]) => {
        const response = await fetch(`${redirect.url}/r/${code}`, { redirect: 'manual' });
        return { code, status: response.status, right: response.headers.get('location') === url };
      }),
    );
    const cached = await redis!.mget(...[...expected.keys()].map((code) => `link:${code}`));
    // Those last requests are visits too.
    const served = new Map(result.served);
    for (const { code, status, right } of after) {
      if (status === 302 && right) served.set(code, (served.get(code) ?? 0) + 1);
    }
    const { counts, storage } = await settle(stack!, served, 60_000, [...expected.keys()]);
    report(
      'scenario 4 redis-lost',
      result,
      counts,
      `afterwards ${after.filter((a) => a.status === 302 && a.right).length}/${after.length} ` +
        `links resolve, ${cached.filter((c) => c !== null).length}/${cached.length} back in Redis`,
    );

    expect(percent302(result)).toBeGreaterThanOrEqual(99.9);
    expect(after.filter((a) => a.status !== 302 || !a.right)).toEqual([]);
    expect(cached.filter((c) => c === null)).toEqual([]);
    expectStoredOnce({ counts, storage });
  });
});
