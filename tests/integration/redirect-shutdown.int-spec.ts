import { InternalClient } from '@shortener/chassis';
import { internalApi } from '@shortener/contracts';
import { startStack, TcpProxy, type Stack } from '@shortener/testkit';

// A redirect instance stopped while Kafka is away (a rollout or a scale-down during the
// outage) cannot publish its queued visits: it gives up after VISIT_DRAIN_TIMEOUT_MS instead
// of waiting for the broker until it is killed, and says exactly how many it could not
// publish (issue 26, item 2), in its log and in visit_events_dropped_total{reason="shutdown"}.

describe('a redirect stopping while Kafka is away', () => {
  let stack: Stack;
  let kafka: TcpProxy;

  beforeAll(async () => {
    // A broker address where every connection is closed at once: Kafka away from the start.
    kafka = await new TcpProxy({ host: '127.0.0.1', port: 1 }, { startOpen: false }).listen();
    stack = await startStack({
      services: ['links', 'redirect'],
      serviceEnv: {
        redirect: { KAFKA_BROKERS: `127.0.0.1:${kafka.port}`, VISIT_DRAIN_TIMEOUT_MS: '1500' },
      },
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await kafka?.close();
  });

  it('gives up after VISIT_DRAIN_TIMEOUT_MS and counts and logs every visit it could not publish', async () => {
    const links = new InternalClient('links', stack.get('links').url, stack.secret);
    const created = await links.call(internalApi.createLink, {
      identity: { userId: 'redirect-shutdown' },
      body: { url: 'https://example.com/redirect-shutdown', days: 1 },
    });
    expect(created.status).toBe(201);
    const code = created.status === 201 ? created.body.urlID : '';
    const redirect = stack.get('redirect');
    let served = 0;
    for (let n = 0; n < 25; n++) {
      const response = await fetch(`${redirect.url}/r/${code}`, { redirect: 'manual' });
      if (response.status === 302) served++;
    }
    expect(served).toBe(25);
    const metrics = await (await fetch(`${redirect.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^visit_queue_depth\{[^}]*\} 25$/m);

    const stoppedAt = Date.now();
    const exitCode = await redirect.stop('SIGTERM');
    const took = Date.now() - stoppedAt;
    const line = redirect
      .output()
      .split('\n')
      .find((text) => text.includes('visits dropped at shutdown'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ dropped: 25, timeoutMs: 1500 });
    // Well before the 25 s after which a stuck shutdown is cut short (exit code 1).
    expect(took).toBeLessThan(10_000);
    expect(exitCode).toBe(0);
  });
});
