import { setTimeout as sleep } from 'node:timers/promises';
import { hostPort, testServers, viaPort, type ServiceProcess } from '@shortener/testkit';
import { RedirectLoad } from './support/load';
import { ReplyHoldingProxy } from './support/reply-holding-proxy';
import {
  createLinks,
  expectStoredOnce,
  FaultStack,
  metric,
  percent302,
  report,
  settle,
} from './support/scenario';

// Scenario 5: one of two redirect instances gets SIGTERM under load, as Kubernetes does on a
// rollout. Its in-flight requests must complete and the visits it still holds must reach
// Kafka before it exits. To have requests surely in flight at that moment, its Redis answers
// are held (a proxy) while it is told to stop, and released a second later; to have visits
// surely queued, it publishes only every 10 s.

function publishedAtShutdown(service: ServiceProcess): number | undefined {
  for (const line of service.output().split('\n')) {
    if (!line.includes('queued visits published')) continue;
    try {
      return (JSON.parse(line) as { published?: number }).published;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

describe('scenario 5: a redirect instance gets SIGTERM under load', () => {
  let load: RedirectLoad | undefined;
  let stack: FaultStack | undefined;
  let redisOfA: ReplyHoldingProxy | undefined;

  beforeAll(async () => {
    redisOfA = await new ReplyHoldingProxy(hostPort(testServers.redisUrl)).listen();
    stack = await FaultStack.startReady('redirect-sigterm', {}, [
      [
        'redirect',
        {
          REDIS_URL: viaPort(testServers.redisUrl, redisOfA.port),
          VISIT_FLUSH_INTERVAL_MS: '10000',
          VISIT_BATCH_MAX: '50000',
          LOG_LEVEL: 'info',
        },
      ],
    ]);
  });

  afterAll(async () => {
    await load?.stop();
    redisOfA?.release();
    await stack?.stop();
    await redisOfA?.close();
  });

  it('finishes its in-flight requests and publishes its queued visits before it exits', async () => {
    const [b, a] = stack!.all('redirect') as [ServiceProcess, ServiceProcess];
    const expected = await createLinks(stack!.client('links'), 'redirect-sigterm');
    // Links no instance has looked up yet, so their lookups surely reach Redis.
    const probes = await createLinks(stack!.client('links'), 'redirect-sigterm-probe', 10);
    load = new RedirectLoad({
      targets: [a.url, b.url],
      expected,
      ratePerSecond: 400,
      durationMs: 12_000,
      failover: true,
    });
    await sleep(6000);

    redisOfA!.holdReplies();
    const probing = [...probes].map(async ([code, url]) => {
      const response = await fetch(`${a.url}/r/${code}`, { redirect: 'manual' });
      return { code, status: response.status, right: response.headers.get('location') === url };
    });
    let inFlight: ReturnType<RedirectLoad['inFlightTo']> = [];
    let queued = 0;
    let aliveAfterSigterm = false;
    try {
      await redisOfA!.waitForSent(
        [...probes.keys()].map((code) => `link:${code}`),
        5000,
      );
      queued = await metric(a, 'visit_queue_depth');
      inFlight = load.inFlightTo(a.url);
      a.child.kill('SIGTERM');
      await sleep(1000);
      aliveAfterSigterm = a.child.exitCode === null && a.child.signalCode === null;
    } finally {
      redisOfA!.release();
    }
    const probed = await Promise.all(probing);
    const exitCode = await a.exited;
    const result = await load.done;

    const served = new Map(result.served);
    for (const { code, status, right } of probed) {
      if (status === 302 && right) served.set(code, 1);
    }
    const { counts, storage } = await settle(stack!, served, 60_000);
    const published = publishedAtShutdown(a);
    report(
      'scenario 5 redirect-sigterm',
      result,
      counts,
      `in flight at SIGTERM ${inFlight.length + probed.length} ` +
        `(${probed.filter((p) => p.status === 302 && p.right).length}/${probed.length} held probes ` +
        `then 302), visits queued ${queued}, published at shutdown ${published ?? 'unknown'}, ` +
        `exit code ${exitCode}, failovers ${result.failovers}`,
    );

    expect(aliveAfterSigterm).toBe(true);
    expect(probed.filter((p) => p.status !== 302 || !p.right)).toEqual([]);
    expect(inFlight.filter((attempt) => attempt.outcome !== 302)).toEqual([]);
    expect(exitCode).toBe(0);
    expect(queued).toBeGreaterThan(0);
    expect(published).toBeGreaterThanOrEqual(queued);
    // With failover to the other instance, as a load balancer does, no visitor saw an error.
    expect(percent302(result)).toBe(100);
    expectStoredOnce({ counts, storage });
  });
});
