import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import Redis from 'ioredis';
import {
  freePort,
  hostPort,
  startServiceProcess,
  TcpProxy,
  testServers,
  viaPort,
  waitFor,
  type ServiceName,
  type ServiceProcess,
} from '@shortener/testkit';

// Issue 13, items 9 and 11, on real processes: /readyz and /metrics are not served to
// strangers (a peer on another address, or anyone a proxy forwards) but to a direct
// loopback peer, or on OPS_PORT only when it is set; /readyz costs at most one round of
// backend checks however many ask at once; rate limits count an IPv6 /64 as one client and
// keep counting in the process while Redis is away.

const SECRET = 'security-ops-test-secret-0123456789';
const API_LIMIT = 3;

/** An address of this machine other than loopback: connecting to it makes a real outside peer. */
function outsideAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address && !address.internal && address.family === 'IPv4')?.address;
}

/** A stand-in for the services behind the gateway that counts the /healthz calls it answers. */
async function countingBackend(): Promise<{ server: Server; url: string; healthChecks: number }> {
  const backend = { server: undefined as unknown as Server, url: '', healthChecks: 0 };
  backend.server = createServer((req, res) => {
    if (req.url === '/healthz') backend.healthChecks += 1;
    // Slow enough that concurrent /readyz calls overlap with the check in flight.
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"ok"}');
    }, 100);
  });
  await new Promise<void>((resolve) => backend.server.listen(0, '127.0.0.1', resolve));
  const address = backend.server.address();
  backend.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return backend;
}

async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { headers });
  return { status: response.status, text: await response.text() };
}

/** /readyz answered with its report (ready or not), as opposed to refused. */
function expectReadinessReport({ status, text }: { status: number; text: string }): void {
  expect([200, 503]).toContain(status);
  expect(JSON.parse(text)).toMatchObject({ ready: expect.any(Boolean) as unknown });
}

function expectMetrics({ status, text }: { status: number; text: string }): void {
  expect(status).toBe(200);
  expect(text).toContain('# HELP process_cpu_user_seconds_total');
}

describe('ops endpoints', () => {
  const services: ServiceProcess[] = [];
  let backend: Awaited<ReturnType<typeof countingBackend>>;
  let envOf: (name: ServiceName) => NodeJS.ProcessEnv;

  beforeAll(async () => {
    backend = await countingBackend();
    envOf = (name) => ({
      INTERNAL_API_SECRET: SECRET,
      REDIS_URL: testServers.redisUrl,
      KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
      TRUSTED_PROXIES: '127.0.0.1,::1',
      ...(name === 'gateway'
        ? {
            AUTH_URL: backend.url,
            LINKS_URL: backend.url,
            ANALYTICS_URL: backend.url,
            REDIRECT_URL: backend.url,
          }
        : { LINKS_URL: backend.url }),
    });
  });

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop('SIGKILL')));
    await new Promise((resolve) => backend.server.close(resolve));
  });

  async function start(
    name: ServiceName,
    env: NodeJS.ProcessEnv = {},
    host = '127.0.0.1',
  ): Promise<ServiceProcess> {
    const service = await startServiceProcess(
      name,
      await freePort(),
      { ...envOf(name), ...env },
      { host },
    );
    services.push(service);
    return service;
  }

  describe.each(['gateway', 'redirect'] as const)('of %s without OPS_PORT', (name) => {
    let service: ServiceProcess;
    beforeAll(async () => {
      // On every address, so that another address of this machine reaches it as an outside peer.
      service = await start(name, {}, '0.0.0.0');
    });

    it('are served to a direct loopback peer', async () => {
      expectReadinessReport(await get(`${service.url}/readyz`));
      expectMetrics(await get(`${service.url}/metrics`));
      expect((await get(`${service.url}/healthz`)).status).toBe(200);
    });

    it('are refused with 404 to an outside peer and to requests a proxy forwards; /healthz is not', async () => {
      const strangers: { who: string; base: string; headers: Record<string, string> }[] = [
        {
          who: 'X-Forwarded-For from a trusted proxy',
          base: service.url,
          headers: { 'x-forwarded-for': '203.0.113.7' },
        },
        {
          who: 'Forwarded from a proxy',
          base: service.url,
          headers: { forwarded: 'for=203.0.113.7' },
        },
      ];
      const outside = outsideAddress();
      if (outside) {
        strangers.push({
          who: `a peer on ${outside}`,
          base: `http://${outside}:${service.port}`,
          headers: {},
        });
      }
      const answers: Record<string, number[]> = {};
      for (const { who, base, headers } of strangers) {
        answers[who] = await Promise.all(
          ['/readyz', '/metrics', '/healthz'].map(
            async (path) => (await get(`${base}${path}`, headers)).status,
          ),
        );
      }
      expect(answers).toEqual(
        Object.fromEntries(strangers.map(({ who }) => [who, [404, 404, 200]])),
      );
    });
  });

  describe.each(['gateway', 'redirect'] as const)('of %s with OPS_PORT', (name) => {
    let service: ServiceProcess;
    beforeAll(async () => {
      service = await start(name, { OPS_PORT: String(await freePort()) });
    });

    it('are served on the ops port only, /healthz on both ports', async () => {
      expect(service.opsUrl).not.toBe(service.url);
      expect((await get(`${service.url}/readyz`)).status).toBe(404);
      expect((await get(`${service.url}/metrics`)).status).toBe(404);
      expect((await get(`${service.url}/healthz`)).status).toBe(200);

      expectReadinessReport(await get(`${service.opsUrl}/readyz`));
      expectMetrics(await get(`${service.opsUrl}/metrics`));
      expect((await get(`${service.opsUrl}/healthz`)).status).toBe(200);
      // The ops port serves nothing else: not the product's routes.
      expect((await get(`${service.opsUrl}/r/abcdefg`)).status).toBe(404);
      expect((await get(`${service.opsUrl}/api/user`)).status).toBe(404);
    });
  });

  it('costs the gateway at most one round of backend checks for 50 concurrent /readyz, and checks again a second later', async () => {
    const gateway = await start('gateway');
    await waitFor(async () => (await get(`${gateway.url}/readyz`)).status === 200, {
      what: 'gateway ready',
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const before = backend.healthChecks;
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => (await get(`${gateway.url}/readyz`)).status),
    );
    expect(answers).toEqual(Array.from({ length: 50 }, () => 200));
    // One round: auth, links, analytics and redirect once each (all this one backend here).
    const oneRound = backend.healthChecks - before;
    expect(oneRound).toBeLessThanOrEqual(4);

    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await get(`${gateway.url}/readyz`)).status).toBe(200);
    expect(backend.healthChecks - before).toBeGreaterThan(oneRound);
    expect(backend.healthChecks - before).toBeLessThanOrEqual(8);
  });
});

describe('rate limits', () => {
  let gateway: ServiceProcess;
  let redisProxy: TcpProxy;
  let redis: Redis;

  beforeAll(async () => {
    redisProxy = await new TcpProxy(hostPort(testServers.redisUrl)).listen();
    redis = new Redis(testServers.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    gateway = await startServiceProcess('gateway', await freePort(), {
      INTERNAL_API_SECRET: SECRET,
      REDIS_URL: viaPort(testServers.redisUrl, redisProxy.port),
      TRUSTED_PROXIES: '127.0.0.1,::1',
      API_RATE_LIMIT: String(API_LIMIT),
      // Nothing behind it: the limit is counted before any service would be asked.
      AUTH_URL: `http://127.0.0.1:${await freePort()}`,
    });
    // Until its Redis connection is up, a new gateway counts in its own memory (the
    // fallback): the tests start once it counts in Redis.
    await countsInRedis();
  });

  afterAll(async () => {
    await gateway.stop('SIGKILL');
    await redisProxy.close();
    redis.disconnect();
  });

  /** An API call posing as `address`, through the trusted proxy (this test, on loopback). */
  async function apiStatus(address: string): Promise<number> {
    const response = await fetch(`${gateway.url}/api/user`, {
      headers: { 'x-requested-with': 'XMLHttpRequest', 'x-forwarded-for': address },
    });
    await response.arrayBuffer();
    return response.status;
  }

  async function countsInRedis(): Promise<void> {
    await waitFor(
      async () => {
        const fresh = ipv4();
        await apiStatus(fresh);
        return (await redis.exists(`ratelimit:api:${fresh}`)) === 1;
      },
      { what: 'rate limits counted in Redis', timeoutMs: 15_000 },
    );
  }

  const switchesToMemory = (): number =>
    (gateway.output().match(/rate limits counted in this process/g) ?? []).length;

  const hex = () => randomInt(0x10000).toString(16);
  const ipv4 = () => `198.18.${randomInt(256)}.${randomInt(1, 255)}`;

  it('count every address of one IPv6 /64 as one client, and IPv4-mapped IPv6 as its IPv4', async () => {
    const prefix = `2001:db8:${hex()}:${hex()}`;
    const sameNetwork = [`${prefix}::1`, `${prefix}:aaaa:bbbb:cccc:dddd`, `${prefix}::2`];
    for (const address of sameNetwork) expect(await apiStatus(address)).not.toBe(429);
    expect(await apiStatus(`${prefix}:0:0:0:3`)).toBe(429);
    // Another /64 is another client.
    expect(await apiStatus(`2001:db8:${hex()}:${hex()}::1`)).not.toBe(429);

    const v4 = ipv4();
    for (let i = 0; i < API_LIMIT; i += 1) expect(await apiStatus(v4)).not.toBe(429);
    expect(await apiStatus(`::ffff:${v4}`)).toBe(429);
  });

  it('keep limiting in the process while Redis is unreachable, and count in Redis again once it is back', async () => {
    const before = switchesToMemory();
    redisProxy.cut();
    const address = ipv4();
    const statuses: number[] = [];
    for (let i = 0; i <= API_LIMIT; i += 1) statuses.push(await apiStatus(address));
    expect(statuses.slice(0, API_LIMIT)).not.toContain(429);
    expect(statuses[API_LIMIT]).toBe(429);
    for (let i = 0; i < 5; i += 1) expect(await apiStatus(ipv4())).not.toBe(429);
    // Said once, however many requests were counted in memory.
    expect(switchesToMemory() - before).toBe(1);

    redisProxy.restore();
    await countsInRedis();
  });
});
