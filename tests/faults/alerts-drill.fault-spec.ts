import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { VISITS_TOPIC } from '@shortener/contracts';
import { testServers, waitFor } from '@shortener/testkit';
import { AlertWatch, opsPorts, podOf, probeReadiness } from './support/alert-watch';
import { startDrillPrometheus, type PrometheusServer } from './support/prometheus';
import { FaultStack, metric, ready } from './support/scenario';

// The alert drill: the shipped rules (six times faster, as scenario 9 runs them) on Debian's
// Prometheus, scraping all five services on their ops ports each as a job of its name, as the
// PodMonitor does, while the kubelet's readiness probes run (support/alert-watch.ts).
// Each fault below makes its alert fire, and each alert that fires must be one the fault
// explains; the stack is quiet before. Faults:
//   - analytics not answering (SIGSTOP: its scrape times out, as a hung or gone pod's would):
//     ServiceDown{job="analytics"} fires, and resolves once it answers again (SIGCONT); its pod
//     not answering is PodsNotReady too, and the gateway finds it away (DependencyDown);
//   - a message on the visits topic that is no visit: VisitsDeadLettered fires. Its window
//     is an hour (ten minutes here), so its resolution is not waited for.
// The broker down (VisitQueueGrowing, and a small queue's VisitSpoolFilling and VisitsDropped)
// is scenario 9's (alert-queue-growing.fault-spec.ts); a dependency away or slow is part two's
// (alerts-dependencies.fault-spec.ts).

const SPEED = 6;
/** How long analytics stays stopped: ServiceDown's 3m `for:` is 30 s here. */
const ANALYTICS_DOWN_MS = 60_000;

describe('alert drill: each alert fires on its real fault', () => {
  let fault: FaultStack | undefined;
  let prometheus: PrometheusServer | undefined;
  let stoppedPid: number | undefined;
  let probes: { stop(): void } | undefined;

  beforeAll(async () => {
    const services = ['gateway', 'auth', 'analytics', 'links', 'redirect'] as const;
    fault = await FaultStack.start('alert-drill', {
      services: [...services],
      serviceEnv: await opsPorts(services),
    });
    for (const name of ['gateway', 'auth', 'analytics', 'links', 'redirect'] as const) {
      await ready(fault.get(name));
    }
  });

  afterAll(async () => {
    probes?.stop();
    if (stoppedPid !== undefined) process.kill(stoppedPid, 'SIGCONT');
    await prometheus?.stop();
    await fault?.stop();
  });

  it('ServiceDown on analytics not answering, VisitsDeadLettered on a bad message; nothing else', async () => {
    const stack = fault!;
    const services = (['gateway', 'auth', 'analytics', 'links', 'redirect'] as const).map((name) =>
      stack.get(name),
    );
    probes = probeReadiness(() => services);
    prometheus = await startDrillPrometheus(services, SPEED);
    const server = prometheus;

    const watch = new AlertWatch(server);
    const firing = async (key: string) => (await watch.poll()).get(key) === 'firing';
    // What each fault explains, one line each (an alert name alone: any labels).
    const explained = {
      analyticsStopped: [
        'ServiceDown{job=analytics}',
        `PodsNotReady{pod=${podOf(stack.get('analytics'))}}`,
        'DependencyDown{dependency=analytics,service=gateway}',
      ],
      deadLetter: ['VisitsDeadLettered'],
    };

    // Quiet: every service up for a while (ServiceDown's 30 s and more), nothing pending.
    await watch.watch(40_000);
    expect(watch.unexplained([])).toEqual([]);

    // Analytics stops answering: ServiceDown for its job, then resolved once it answers.
    const analytics = stack.get('analytics');
    stoppedPid = analytics.child.pid!;
    process.kill(stoppedPid, 'SIGSTOP');
    const stoppedAt = Date.now();
    let downFiringAt = 0;
    try {
      while (Date.now() - stoppedAt < ANALYTICS_DOWN_MS) {
        if (downFiringAt === 0 && (await firing('ServiceDown{job=analytics}'))) {
          downFiringAt = Date.now();
        }
        await sleep(1000);
      }
    } finally {
      process.kill(stoppedPid, 'SIGCONT');
      stoppedPid = undefined;
    }
    const continuedAt = Date.now();
    let downResolvedAt = 0;
    await waitFor(
      async () => {
        if ((await watch.poll()).has('ServiceDown{job=analytics}')) return false;
        downResolvedAt = Date.now();
        return true;
      },
      { what: 'ServiceDown resolved', timeoutMs: 60_000, intervalMs: 1000 },
    ).catch(() => undefined);
    await ready(analytics);

    // A message on the visits topic that is no visit: dead-lettered, and alerted on.
    const before = await metric(analytics, 'analytics_visits_dead_lettered_total');
    const producer = new Kafka({
      clientId: 'alert-drill',
      brokers: testServers.kafkaBrokers,
      logLevel: logLevel.NOTHING,
    }).producer();
    await producer.connect();
    try {
      await producer.send({
        topic: VISITS_TOPIC,
        acks: -1,
        messages: [{ key: 'drill', value: 'not a visit' }],
      });
    } finally {
      await producer.disconnect();
    }
    const sentAt = Date.now();
    let deadFiringAt = 0;
    await waitFor(
      async () => {
        if (!(await firing('VisitsDeadLettered'))) return false;
        deadFiringAt = Date.now();
        return true;
      },
      { what: 'VisitsDeadLettered firing', timeoutMs: 60_000, intervalMs: 1000 },
    ).catch(() => undefined);
    const after = await metric(analytics, 'analytics_visits_dead_lettered_total');

    const at = (time: number, from: number) =>
      time === 0 ? 'never' : `${((time - from) / 1000).toFixed(0)} s`;
    process.stdout.write(
      `\nalert drill: rules ${SPEED}× faster; analytics stopped ${ANALYTICS_DOWN_MS / 1000} s: ServiceDown ` +
        `firing at ${at(downFiringAt, stoppedAt)}, resolved ${at(downResolvedAt, continuedAt)} ` +
        `after it answered again; a bad message: dead-lettered ${before} -> ${after}, ` +
        `VisitsDeadLettered firing at ${at(deadFiringAt, sentAt)}; alerts seen: ` +
        `${watch.describe()} (pending/firing/last, s)\n`,
    );

    expect(downFiringAt).toBeGreaterThan(stoppedAt);
    expect(downResolvedAt).toBeGreaterThan(continuedAt);
    expect(after).toBe(before + 1);
    expect(deadFiringAt).toBeGreaterThan(sentAt);
    // Nothing else.
    expect(watch.unexplained(Object.values(explained).flat())).toEqual([]);
  }, 360_000);
});
