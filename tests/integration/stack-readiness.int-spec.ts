import { Client } from 'pg';
import { InternalClient } from '@shortener/chassis';
import { internalApi } from '@shortener/contracts';
import { startStack, testServers, type Stack } from '@shortener/testkit';

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
