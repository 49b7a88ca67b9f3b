import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, type ServiceProcess } from '@shortener/testkit';
import { brokerReachable, killBroker, startBroker, usesLocalBroker } from './support/kafka-control';
import { RedirectLoad } from './support/load';
import { AlertWatch, opsPorts, podOf, probeReadiness } from './support/alert-watch';
import { startDrillPrometheus, type PrometheusServer } from './support/prometheus';
import {
  createLinks,
  expectStoredOnce,
  FaultStack,
  metric,
  percent302,
  report,
  settle,
  settledCounts,
  tally,
} from './support/scenario';

// Scenario 9: the shipped alert rules, live. Debian's Prometheus scrapes the five services
// every second on their ops ports (as the PodMonitor does; the kubelet's readiness probes run
// too: support/alert-watch.ts) while the Kafka broker is stopped for a minute under redirect
// load: VisitQueueGrowing (visits waiting in the redirect's memory) must fire while the broker
// is away and resolve once it is back, and every visit served is stored once. A second
// redirect instance with a small queue (VISIT_QUEUE_MAX 1,000, under 40 redirects/s of links
// of its own) fills it: VisitSpoolFilling past half, then VisitsDropped as the full queue
// drops visits; both resolve after, and every visit it served is stored or counted dropped.
// No alert fires that the broker's absence does not explain.
//
// The rules are the shipped file (k8s/components/monitoring/alerts.yml) with time running
// six times faster (support/prometheus.ts fasterRules: every `for:` and range divided by six,
// so VisitQueueGrowing's [2m] window and 1m wait become 20 s and 10 s); nothing else changes.

const SPEED = 6;
const RATE = 200;
const BEFORE_MS = 10_000;
const DOWN_MS = 60_000;
// Load goes on after the restart until the alert has resolved or this long has passed.
const AFTER_MS = 60_000;
const ALERT = 'VisitQueueGrowing';
const SMALL_QUEUE = 1000;
const SMALL_RATE = 40;
const SERVICES = ['gateway', 'auth', 'analytics', 'links', 'redirect'] as const;

const local = usesLocalBroker() ? it : it.skip;

describe('scenario 9: Prometheus alerts on visits waiting for a stopped broker', () => {
  let load: RedirectLoad | undefined;
  let smallLoad: RedirectLoad | undefined;
  let fault: FaultStack | undefined;
  let prometheus: PrometheusServer | undefined;
  let probes: { stop(): void } | undefined;

  beforeAll(async () => {
    if (usesLocalBroker() && !(await brokerReachable())) await startBroker();
    fault = await FaultStack.startReady(
      'alerts',
      { services: [...SERVICES], serviceEnv: await opsPorts(SERVICES) },
      // The second redirect instance, its queue small: its own ops port too.
      [['redirect', { VISIT_QUEUE_MAX: String(SMALL_QUEUE), OPS_PORT: String(await freePort()) }]],
    );
  });

  afterAll(async () => {
    probes?.stop();
    await load?.stop();
    await smallLoad?.stop();
    await prometheus?.stop();
    await fault?.stop();
  });

  local(
    'VisitQueueGrowing fires while the broker is away and resolves after, no visit lost',
    async () => {
      const stack = fault!;
      const [redirect, small] = stack.all('redirect') as [ServiceProcess, ServiceProcess];
      const services = SERVICES.flatMap((name) => stack.all(name));
      probes = probeReadiness(() => services);
      prometheus = await startDrillPrometheus(services, SPEED);
      const server = prometheus;

      // What the broker's absence explains, one line each (an alert name alone: any labels).
      const queueKey = `${ALERT}{pod=${podOf(redirect)}}`;
      const fillingKey = `VisitSpoolFilling{pod=${podOf(small)}}`;
      const droppedKey = `VisitsDropped{pod=${podOf(small)},reason=queue_full}`;
      const explained = [
        queueKey,
        fillingKey,
        droppedKey,
        'DependencyDown{dependency=kafka,service=redirect}',
        'DependencyDown{dependency=kafka,service=analytics}',
      ];

      const expected = await createLinks(stack.client('links'), 'alerts');
      const smallExpected = await createLinks(stack.client('links'), 'alerts-small', 20);
      load = new RedirectLoad({
        targets: [redirect.url],
        expected,
        ratePerSecond: RATE,
        durationMs: BEFORE_MS + DOWN_MS + AFTER_MS,
      });
      smallLoad = new RedirectLoad({
        targets: [small.url],
        expected: smallExpected,
        ratePerSecond: SMALL_RATE,
        durationMs: BEFORE_MS + DOWN_MS,
      });
      const watch = new AlertWatch(server);

      await watch.watch(BEFORE_MS);
      const quietBefore = watch.unexplained([]);
      const killedAt = Date.now();
      let firingAt = 0;
      let fillingAt = 0;
      let droppedAt = 0;
      let restartedAt = 0;
      let queuedWhileDown = 0;
      let mustRestart = true;
      try {
        const killed = await killBroker();
        mustRestart = killed.stopped;
        if (!killed.stopped) throw new Error('no broker started by infra/infra.mjs to stop');
        while (Date.now() - killedAt < DOWN_MS) {
          const listed = await watch.poll();
          if (listed.get(queueKey) === 'firing') firingAt ||= Date.now();
          if (listed.get(fillingKey) === 'firing') fillingAt ||= Date.now();
          if (listed.get(droppedKey) === 'firing') droppedAt ||= Date.now();
          await sleep(1000);
        }
        queuedWhileDown = await metric(redirect, 'visit_queue_depth');
      } finally {
        restartedAt = Date.now();
        if (mustRestart) await startBroker();
      }

      // Resolved: no longer listed, having fired.
      const resolved: Record<string, number> = {};
      for (const key of [queueKey, fillingKey, droppedKey]) {
        resolved[key] = await watch.until(
          key,
          'resolved',
          AFTER_MS + 30_000 - (Date.now() - restartedAt),
        );
      }
      const result = await load.stop();
      const smallResult = await smallLoad.stop();
      const { counts, storage } = await settle(stack, result.served, 90_000, [...expected.keys()]);
      const dropped = await metric(redirect, 'visit_events_dropped_total');
      const smallDropped = await metric(small, 'visit_events_dropped_total');
      // Long stored by now: what is missing was dropped, and never comes.
      const smallStored = await settledCounts(stack, smallResult.served, 5000);
      const smallCounts = tally(smallResult.served, smallStored);
      const at = (time: number, from = killedAt) =>
        time === 0 ? 'never' : `${((time - from) / 1000).toFixed(0)} s`;
      report(
        'scenario 9 alerts',
        result,
        counts,
        `broker stopped at 0 s for ${(DOWN_MS / 1000).toFixed(0)} s (rules ${SPEED}× faster); ` +
          `${ALERT} firing at ${at(firingAt)}, resolved at ${at(resolved[queueKey]!)} ` +
          `(broker restarted at ${at(restartedAt)}, ${queuedWhileDown} visits queued just before); ` +
          `small queue (${SMALL_QUEUE}): VisitSpoolFilling firing at ${at(fillingAt)}, resolved at ` +
          `${at(resolved[fillingKey]!)}; VisitsDropped firing at ${at(droppedAt)}, resolved at ` +
          `${at(resolved[droppedKey]!)}; it served ${smallCounts.served}, stored ` +
          `${smallCounts.stored}, dropped ${smallDropped}; alerts seen (pending/firing/last, s ` +
          `from ${at(watch.start)}): ${watch.describe()}; dropped ${dropped}`,
      );

      expect(quietBefore).toEqual([]);
      // Fired while the broker was away, and only then; resolved after.
      expect(firingAt).toBeGreaterThan(killedAt);
      expect(firingAt).toBeLessThan(restartedAt);
      expect(fillingAt).toBeGreaterThan(killedAt);
      expect(fillingAt).toBeLessThan(restartedAt);
      expect(droppedAt).toBeGreaterThan(killedAt);
      expect(droppedAt).toBeLessThan(restartedAt);
      for (const key of [queueKey, fillingKey, droppedKey]) {
        expect({ key, resolved: resolved[key]! > restartedAt }).toEqual({ key, resolved: true });
      }
      expect(watch.unexplained(explained)).toEqual([]);
      // The small queue's visits: each stored, or counted dropped (none twice).
      expect(smallDropped).toBeGreaterThan(0);
      expect(smallCounts.doubled).toBe(0);
      expect(smallCounts.stored + smallDropped).toBe(smallCounts.served);
      // The big queue lost nothing.
      expect(dropped).toBe(0);
      expect(percent302(result)).toBe(100);
      expectStoredOnce({ counts, storage });
    },
    360_000,
  );
});
