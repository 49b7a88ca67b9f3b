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

// Each service starts while its dependencies are unreachable and says it is alive. It is not
// ready only for what it cannot serve without (PostgreSQL for auth, links and analytics),
// and becomes ready as that comes up. Redis, Kafka and the other services are reported in the
// body but never fail readiness: the redirect service and the gateway are ready at once.

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

  it('is not ready only without what it cannot serve without, reports the rest, and stops cleanly on SIGTERM', async () => {
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
      // The redirect service finds links through links' proxy, as the gateway does.
      const links = serviceProxies.get('links');
      const calls =
        name === 'redirect' && links ? { LINKS_URL: `http://127.0.0.1:${links.port}` } : {};
      services.set(name, await startServiceProcess(name, port, { ...dependencies, ...calls }));
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
    services.set('gateway', await startServiceProcess('gateway', await freePort(), gatewayEnv));

    const needPostgres: ServiceName[] = ['auth', 'links', 'analytics'];
    for (const service of services.values()) {
      const { status, body } = await readiness(service);
      const blocked = needPostgres.includes(service.name as ServiceName);
      expect({ service: service.name, status }).toEqual({
        service: service.name,
        status: blocked ? 503 : 200,
      });
      expect(body).toMatchObject({ ready: !blocked });
    }
    // What they do without is reported: the gateway names the services it cannot reach.
    const gatewayReport = (await readiness(services.get('gateway')!)).body as {
      checks: Record<string, string>;
    };
    expect(gatewayReport.checks['links']).toMatch(/^degraded: /);
    expect((await readiness(services.get('links')!)).body).toMatchObject({
      checks: { postgres: expect.not.stringMatching(/^ok$/) as unknown },
    });

    postgres.restore();
    for (const name of needPostgres) {
      const service = services.get(name)!;
      await waitFor(async () => (await readiness(service)).status === 200, {
        what: `${name} ready with PostgreSQL`,
        timeoutMs: 30_000,
      });
    }
    // Redis and Kafka are still away: reported, not failing.
    expect((await readiness(services.get('analytics')!)).body).toMatchObject({
      ready: true,
      checks: { kafka: expect.stringMatching(/^degraded: /) as unknown },
    });

    redis.restore();
    kafka.restore();
    for (const proxy of serviceProxies.values()) proxy.restore();
    for (const service of services.values()) {
      await waitFor(
        async () => {
          const { body } = (await readiness(service)) as {
            body: { checks: Record<string, string> };
          };
          return Object.values(body.checks).every((result) => result === 'ok');
        },
        { what: `${service.name} reporting every dependency ok`, timeoutMs: 30_000 },
      );
    }

    for (const service of services.values()) {
      expect({ service: service.name, exit: await service.stop('SIGTERM') }).toEqual({
        service: service.name,
        exit: 0,
      });
      expect(service.output()).toContain('"msg":"stopped"');
    }
  });
});
