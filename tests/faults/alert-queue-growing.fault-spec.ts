import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@shortener/testkit';
import { brokerReachable, killBroker, startBroker, usesLocalBroker } from './support/kafka-control';
import { RedirectLoad } from './support/load';
import { fasterRules, startPrometheus, type PrometheusServer } from './support/prometheus';
import {
  checkStorage,
  createLinks,
  FaultStack,
  metric,
  percent302,
  ready,
  report,
  settledCounts,
  tally,
} from './support/scenario';

// Scenario 9: the shipped alert rules, live. Debian's Prometheus scrapes the services every
// second while the Kafka broker is stopped for a minute under redirect load: VisitQueueGrowing
// (visits waiting in the redirect's memory) must fire while the broker is away and resolve
// once it is back, and every visit served is stored once.
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

const local = usesLocalBroker() ? it : it.skip;

describe('scenario 9: Prometheus alerts on visits waiting for a stopped broker', () => {
  let load: RedirectLoad | undefined;
  let fault: FaultStack | undefined;
  let prometheus: PrometheusServer | undefined;

  beforeAll(async () => {
    if (usesLocalBroker() && !(await brokerReachable())) await startBroker();
    fault = await FaultStack.start('alerts');
    for (const name of ['redirect', 'analytics', 'links'] as const) {
      await ready(fault.get(name));
    }
  });

  afterAll(async () => {
    await load?.stop();
    await prometheus?.stop();
    await fault?.stop();
  });

  local(
    'VisitQueueGrowing fires while the broker is away and resolves after, no visit lost',
    async () => {
      const stack = fault!;
      const redirect = stack.get('redirect');
      const rules = fasterRules(SPEED);
      prometheus = await startPrometheus({
        services: [redirect, stack.get('analytics'), stack.get('links')],
        rules: rules.yaml,
        intervalSeconds: 1,
      });
      const server = prometheus;
      // Every shipped alert was loaded (Prometheus refuses a rules file it cannot parse).
      expect((await server.ruleNames()).sort()).toEqual([...rules.alerts].sort());
      const targets = await waitFor(
        async () => {
          const all = await server.targets();
          return all.length === 3 && all.every((target) => target.health === 'up') && all;
        },
        { what: 'Prometheus scraping the three services', timeoutMs: 20_000, intervalMs: 500 },
      ).catch(async (error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(await server.targets())}`);
      });
      expect(targets.map((target) => target.health)).toEqual(['up', 'up', 'up']);

      const expected = await createLinks(stack.client('links'), 'alerts');
      load = new RedirectLoad({
        targets: [redirect.url],
        expected,
        ratePerSecond: RATE,
        durationMs: BEFORE_MS + DOWN_MS + AFTER_MS,
      });
      // Every alert seen, for the report and for VisitsDropped staying silent.
      const seen = new Map<string, string>();
      const queueAlert = async () => {
        const alerts = await server.alerts();
        for (const alert of alerts) seen.set(alert.labels['alertname']!, alert.state);
        return alerts.find((alert) => alert.labels['alertname'] === ALERT);
      };

      await sleep(BEFORE_MS);
      const quietBefore = await queueAlert();
      const killedAt = Date.now();
      let firingAt = 0;
      let restartedAt = 0;
      let queuedWhileDown = 0;
      let mustRestart = true;
      try {
        const killed = await killBroker();
        mustRestart = killed.stopped;
        if (!killed.stopped) throw new Error('no broker started by infra/infra.mjs to stop');
        while (Date.now() - killedAt < DOWN_MS) {
          const alert = await queueAlert();
          if (alert?.state === 'firing' && firingAt === 0) firingAt = Date.now();
          await sleep(1000);
        }
        queuedWhileDown = await metric(redirect, 'visit_queue_depth');
      } finally {
        restartedAt = Date.now();
        if (mustRestart) await startBroker();
      }

      // Resolved: no longer listed, having fired.
      let resolvedAt = 0;
      while (firingAt > 0 && Date.now() - restartedAt < AFTER_MS + 30_000) {
        if ((await queueAlert()) === undefined) {
          resolvedAt = Date.now();
          break;
        }
        await sleep(1000);
      }
      const result = await load.stop();
      const stored = await settledCounts(stack, result.served, 90_000);
      const counts = tally(result.served, stored);
      const storage = await checkStorage([...expected.keys()]);
      const dropped = await metric(redirect, 'visit_events_dropped_total');
      const at = (time: number) =>
        time === 0 ? 'never' : `${((time - killedAt) / 1000).toFixed(0)} s`;
      report(
        'scenario 9 alerts',
        result,
        counts,
        `broker stopped at 0 s for ${(DOWN_MS / 1000).toFixed(0)} s (rules ${SPEED}× faster); ` +
          `${ALERT} firing at ${at(firingAt)}, resolved at ${at(resolvedAt)} ` +
          `(broker restarted at ${at(restartedAt)}, ${queuedWhileDown} visits queued just before); ` +
          `alerts seen: ${[...seen].map(([name, state]) => `${name} ${state}`).join(', ') || 'none'}; ` +
          `dropped ${dropped}`,
      );

      expect(quietBefore).toBeUndefined();
      // Fired while the broker was away, and only then.
      expect(firingAt).toBeGreaterThan(killedAt);
      expect(firingAt).toBeLessThan(restartedAt);
      expect(resolvedAt).toBeGreaterThan(restartedAt);
      expect(seen.has('VisitsDropped')).toBe(false);
      expect(dropped).toBe(0);
      expect(percent302(result)).toBe(100);
      expect(counts.mismatched).toEqual([]);
      expect({ lost: counts.lost, doubled: counts.doubled }).toEqual({ lost: 0, doubled: 0 });
      expect(storage.duplicateIds).toBe(0);
      expect(storage.statsMismatches).toEqual([]);
    },
    360_000,
  );
});
