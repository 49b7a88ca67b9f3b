import { createServer, type Server } from 'node:http';
import { Client } from 'pg';
import { InternalClient } from '@shortener/chassis';
import { internalApi } from '@shortener/contracts';
import {
  freePort,
  startServiceProcess,
  startStack,
  testServers,
  type ServiceProcess,
  type Stack,
} from '@shortener/testkit';

// The test stack hands itself over only when every service is ready, not merely alive: a
// service answers /healthz before it has its database, and a test's first call in between
// was a 503 (the links pod of a rolling-upgrade test in CI). Here links' start-up is held
// on its migration lock, as another instance migrating at the same moment holds it.

describe('a test stack', () => {
  let stack: Stack | undefined;
  let holder: Client | undefined;

  afterEach(async () => {
    await holder?.end();
    await stack?.stop();
  });

  it('is handed over once its services answer /readyz, not /healthz alone', async () => {
    holder = new Client({ connectionString: testServers.databaseUrl });
    await holder.connect();
    await holder.query(`SELECT pg_advisory_lock(hashtext('migrations:links'))`);
    const lock = holder;
    const release = setTimeout(() => {
      void lock.query(`SELECT pg_advisory_unlock(hashtext('migrations:links'))`);
    }, 3000);
    try {
      stack = await startStack({ services: ['links'] });
    } finally {
      clearTimeout(release);
    }
    const links = new InternalClient('links', stack.get('links').url, stack.secret);
    const created = await links.call(internalApi.createLink, {
      identity: { userId: 'stack-readiness' },
      body: { url: 'https://example.com/stack-readiness', days: 1 },
    });
    expect(created.status).toBe(201);
  });
});

describe('a test service', () => {
  let impostor: Server | undefined;
  let service: ServiceProcess | undefined;

  afterEach(async () => {
    await service?.stop();
    await new Promise((resolve) => (impostor ? impostor.close(resolve) : resolve(undefined)));
  });

  it('is not taken for started when another process answers /healthz on its port', async () => {
    // Another process on the port (a service of another run, say): this one cannot bind it.
    const port = await freePort();
    impostor = createServer((_request, response) => response.end('{"status":"ok"}'));
    await new Promise<void>((resolve) => impostor!.listen(port, '127.0.0.1', resolve));
    const started = startServiceProcess('links', port, {
      DATABASE_URL: testServers.databaseUrl,
      REDIS_URL: testServers.redisUrl,
      INTERNAL_API_SECRET: 'a-secret-for-this-test-only-0123456789',
      LOG_LEVEL: 'warn',
    });
    service = await started.catch(() => undefined);
    await expect(started).rejects.toThrow(/exited with \d+ before answering \/healthz/);
  });
});
