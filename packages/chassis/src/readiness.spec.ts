import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { Registry } from 'prom-client';
import { checkReadiness, dependencyMetric, serviceAlive, throttledReadiness } from './readiness';

const ok = () => Promise.resolve();
const down = () => Promise.reject(new Error('connection refused'));

describe('checkReadiness', () => {
  it('is ready when every check answers', async () => {
    expect(await checkReadiness([{ name: 'postgres', check: ok }])).toEqual({
      ready: true,
      checks: { postgres: 'ok' },
    });
  });

  it('is not ready when a required dependency fails, and says why', async () => {
    expect(
      await checkReadiness([
        { name: 'postgres', check: down },
        { name: 'redis', check: ok },
      ]),
    ).toEqual({
      ready: false,
      checks: { postgres: 'connection refused', redis: 'ok' },
    });
  });

  it('stays ready without an optional dependency, reporting it degraded', async () => {
    expect(await checkReadiness([{ name: 'kafka', check: down, optional: true }])).toEqual({
      ready: true,
      checks: { kafka: 'degraded: connection refused' },
    });
  });

  it('is never ready while shutting down', async () => {
    expect((await checkReadiness([{ name: 'x', check: ok }], true)).ready).toBe(false);
  });
});

describe('throttledReadiness', () => {
  it('shares one round of checks between concurrent calls', async () => {
    let calls = 0;
    let answer = (): void => undefined;
    const check = () => {
      calls += 1;
      return new Promise<void>((resolve) => (answer = resolve));
    };
    const readiness = throttledReadiness([{ name: 'links', check }]);
    const reports = Array.from({ length: 50 }, () => readiness());
    answer();
    expect(await Promise.all(reports)).toEqual(
      Array.from({ length: 50 }, () => ({ ready: true, checks: { links: 'ok' } })),
    );
    expect(calls).toBe(1);
  });

  it('answers from the last round for maxAgeMs after it ends, then checks again', async () => {
    let now = 1_000;
    let calls = 0;
    const check = () => {
      calls += 1;
      return Promise.resolve();
    };
    const readiness = throttledReadiness([{ name: 'links', check }], {
      maxAgeMs: 1000,
      now: () => now,
    });
    await readiness();
    now += 999;
    await readiness();
    expect(calls).toBe(1);
    now += 1;
    await readiness();
    expect(calls).toBe(2);
  });

  it('reports shutting down at once, from a cached round too', async () => {
    const readiness = throttledReadiness([{ name: 'x', check: ok }]);
    expect(await readiness()).toEqual({ ready: true, checks: { x: 'ok' } });
    expect(await readiness(true)).toEqual({
      ready: false,
      checks: { x: 'ok', shutdown: 'shutting down' },
    });
  });
});

describe('dependencyMetric', () => {
  it('keeps each dependency of the last round as dependency_up 1 or 0, one gauge per registry', async () => {
    const registry = new Registry();
    let redis: () => Promise<void> = down;
    const readiness = throttledReadiness(
      [
        { name: 'postgres', check: ok },
        { name: 'redis', check: () => redis(), optional: true },
      ],
      { maxAgeMs: 0, onReport: dependencyMetric(registry) },
    );
    // A second reporter into the same registry (the ops port beside the main one) is fine.
    dependencyMetric(registry);
    await readiness();
    await Promise.resolve();
    const text = await registry.metrics();
    expect(text).toContain('dependency_up{dependency="postgres"} 1');
    expect(text).toContain('dependency_up{dependency="redis"} 0');
    redis = ok;
    await readiness();
    await Promise.resolve();
    expect(await registry.metrics()).toContain('dependency_up{dependency="redis"} 1');
  });

  it("keeps the round's verdict as service_ready 1 or 0", async () => {
    const registry = new Registry();
    let postgres: () => Promise<void> = ok;
    const readiness = throttledReadiness([{ name: 'postgres', check: () => postgres() }], {
      maxAgeMs: 0,
      onReport: dependencyMetric(registry),
    });
    await readiness();
    await Promise.resolve();
    expect(await registry.metrics()).toMatch(/^service_ready 1$/m);
    postgres = down;
    await readiness();
    await Promise.resolve();
    expect(await registry.metrics()).toMatch(/^service_ready 0$/m);
  });
});

describe('serviceAlive', () => {
  let server: Server;
  let status = 200;
  let silent = false;
  let base = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (silent) return; // never answers
      res.writeHead(req.url === '/healthz' ? status : 404).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  it("is an optional check of the service's /healthz: ok on 2xx, the status otherwise, a timeout", async () => {
    const check = serviceAlive('links', base, 200);
    expect(check.optional).toBe(true);
    await expect(check.check()).resolves.toBeUndefined();
    status = 503;
    await expect(check.check()).rejects.toThrow('answered 503');
    silent = true;
    await expect(check.check()).rejects.toThrow('no answer within 200 ms');
    await expect(serviceAlive('links', 'http://127.0.0.1:1').check()).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });
});
