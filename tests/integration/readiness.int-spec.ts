import {
  freePort,
  hostPort,
  startService,
  TcpProxy,
  testServers,
  viaPort,
  waitFor,
  type ServiceName,
  type ServiceProcess,
} from '@shortener/testkit';

// Each service starts while its dependencies are unreachable, says it is alive but not
// ready, and becomes ready as they come up: PostgreSQL, Redis and Kafka behind proxies
// this test opens, and for the gateway the services behind it.

async function readiness(service: ServiceProcess): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${service.url}/readyz`);
  return { status: response.status, body: await response.json() };
}

describe('readiness follows dependencies', () => {
  const proxies: TcpProxy[] = [];
  const services = new Map<ServiceName, ServiceProcess>();
  const serviceProxies = new Map<ServiceName, TcpProxy>();

  async function proxyTo(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = await new TcpProxy(target, { startOpen: false }).listen();
    proxies.push(proxy);
    return proxy;
  }

  afterAll(async () => {
    await Promise.all([...services.values()].map((service) => service.stop('SIGKILL')));
    await Promise.all(proxies.map((proxy) => proxy.close()));
  });

  it('goes from not ready to ready for all five services, and stops cleanly on SIGTERM', async () => {
    const postgres = await proxyTo(hostPort(testServers.databaseUrl));
    const redis = await proxyTo(hostPort(testServers.redisUrl));
    const [kafkaHost, kafkaPort] = (testServers.kafkaBrokers[0] ?? '').split(':');
    const kafka = await proxyTo({ host: kafkaHost ?? '127.0.0.1', port: Number(kafkaPort) });

    const dependencies = {
      INTERNAL_API_SECRET: 'readiness-test-secret-0123456789',
      DATABASE_URL: viaPort(testServers.databaseUrl, postgres.port),
      REDIS_URL: viaPort(testServers.redisUrl, redis.port),
      KAFKA_BROKERS: `127.0.0.1:${kafka.port}`,
    };
    const backends: ServiceName[] = ['auth', 'links', 'analytics', 'redirect'];
    for (const name of backends) {
      const port = await freePort();
      services.set(name, await startService(name, port, dependencies));
      serviceProxies.set(name, await proxyTo({ host: '127.0.0.1', port }));
    }
    const gatewayEnv = {
      INTERNAL_API_SECRET: dependencies.INTERNAL_API_SECRET,
      REDIS_URL: dependencies.REDIS_URL,
      ...Object.fromEntries(
        backends.map((name) => [
          `${name.toUpperCase()}_URL`,
          `http://127.0.0.1:${serviceProxies.get(name)?.port}`,
        ]),
      ),
    };
    services.set('gateway', await startService('gateway', await freePort(), gatewayEnv));

    for (const service of services.values()) {
      const { status, body } = await readiness(service);
      expect({ service: service.name, status }).toEqual({ service: service.name, status: 503 });
      expect(body).toMatchObject({ ready: false });
    }

    postgres.restore();
    redis.restore();
    kafka.restore();
    for (const name of backends) {
      const service = services.get(name)!;
      await waitFor(async () => (await readiness(service)).status === 200, {
        what: `${name} ready`,
        timeoutMs: 30_000,
      });
    }
    // The gateway still cannot reach the services behind it.
    expect((await readiness(services.get('gateway')!)).status).toBe(503);

    for (const proxy of serviceProxies.values()) proxy.restore();
    const gateway = services.get('gateway')!;
    await waitFor(async () => (await readiness(gateway)).status === 200, { what: 'gateway ready' });

    for (const service of services.values()) {
      expect({ service: service.name, exit: await service.stop('SIGTERM') }).toEqual({
        service: service.name,
        exit: 0,
      });
      expect(service.output()).toContain('"msg":"stopped"');
    }
  });
});
