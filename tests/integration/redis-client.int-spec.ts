import { once } from 'node:events';
import pino from 'pino';
import { createRedis, closeRedis, type Redis } from '@shortener/chassis-redis';
import { hostPort, TcpProxy, testServers, viaPort } from '@shortener/testkit';

// The services' Redis client fails fast while Redis is away, so a caller falls back (the
// redirect to the links service) instead of waiting. That must hold for a command already
// on its way when the connection drops, too: ioredis keeps such a command to send again
// once Redis is back, which no flush of its queues reaches, so without a deadline of its own
// it waited for the whole outage, and with it every redirect sharing its lookup.

const logger = pino({ level: 'silent' });

/** What `promise` came to within `ms`. */
async function settledWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<'answered' | 'failed' | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => 'answered' as const,
        () => 'failed' as const,
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("the services' Redis client", () => {
  let proxy: TcpProxy;
  let client: Redis;

  beforeEach(async () => {
    proxy = await new TcpProxy(hostPort(testServers.redisUrl)).listen();
    client = createRedis(viaPort(testServers.redisUrl, proxy.port), logger);
    await once(client, 'ready');
  });

  afterEach(async () => {
    proxy.restore();
    await closeRedis(client);
    await proxy.close();
  });

  it('fails a command in flight when the connection drops, while Redis stays away', async () => {
    expect(await client.ping()).toBe('PONG');
    // Written to the socket in this tick; the reply cannot arrive before the cut below.
    const inFlight = client.get('redis-client-spec:missing');
    proxy.cut();
    const outcome = await settledWithin(inFlight, 5000);
    expect(outcome).toBe('failed');
  });

  it('fails a command made while Redis is away at once', async () => {
    const lost = once(client, 'reconnecting');
    proxy.cut();
    await lost;
    const outcome = await settledWithin(client.get('redis-client-spec:missing'), 500);
    expect(outcome).toBe('failed');
  });

  it('answers again once Redis is back', async () => {
    const lost = once(client, 'reconnecting');
    proxy.cut();
    await lost;
    proxy.restore();
    await once(client, 'ready');
    expect(await client.ping()).toBe('PONG');
  });
});
