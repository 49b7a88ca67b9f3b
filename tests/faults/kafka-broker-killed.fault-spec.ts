import { setTimeout as sleep } from 'node:timers/promises';
import { brokerReachable, killBroker, startBroker, usesLocalBroker } from './support/kafka-control';
import { quantile, RedirectLoad } from './support/load';
import {
  createLinks,
  expectStoredOnce,
  FaultStack,
  metric,
  percent302,
  report,
  sampleMetric,
  settle,
} from './support/scenario';

// Scenario 1 of the fault suite: the Kafka broker crashes (SIGKILL) under about 1,000
// redirects/s and comes back 20 s later. Redirects must not notice (visits wait in the
// redirect's memory), and once the broker is back every visit served is stored exactly once.

const RATE = 1000;
const LOAD_MS = 30_000;
const KILL_AFTER_MS = 5000;
const DOWN_MS = 20_000;

// infra can only kill and restart this checkout's own broker, not a cluster KAFKA_BROKERS names.
const local = usesLocalBroker() ? it : it.skip;

describe('scenario 1: the Kafka broker is killed under load', () => {
  let load: RedirectLoad | undefined;
  let fault: FaultStack | undefined;

  beforeAll(async () => {
    // A run that died mid-scenario may have left this checkout's broker down.
    if (usesLocalBroker() && !(await brokerReachable())) await startBroker();
    fault = await FaultStack.startReady('kafka-killed');
  });

  afterAll(async () => {
    await load?.stop();
    await fault?.stop();
  });

  local(
    'redirects every request at once while Kafka is away, then stores each visit once',
    async () => {
      const stack = fault!;
      const redirect = stack.get('redirect');
      const expected = await createLinks(stack.client('links'), 'kafka-killed');
      load = new RedirectLoad({
        targets: [redirect.url],
        expected,
        ratePerSecond: RATE,
        durationMs: LOAD_MS,
      });
      // Whether the redirect's own event loop stalls, as opposed to the machine being busy.
      const lag = sampleMetric(redirect, 'nodejs_eventloop_lag_max_seconds', load.done);

      await sleep(KILL_AFTER_MS);
      const killedAt = Date.now();
      let restartedAt = 0;
      let queuedWhileDown = 0;
      // Set before the call: should it fail half-way, the broker is brought back all the same.
      let mustRestart = true;
      try {
        const killed = await killBroker();
        mustRestart = killed.stopped;
        if (!killed.stopped) throw new Error('no broker started by infra/infra.mjs to kill');
        await sleep(DOWN_MS - (Date.now() - killedAt));
        queuedWhileDown = await metric(redirect, 'visit_queue_depth');
      } finally {
        // Shared by everyone on this machine: always brought back, even when the test fails.
        restartedAt = Date.now();
        if (mustRestart) await startBroker();
      }
      const brokerBackMs = Date.now() - restartedAt;
      const result = await load.done;

      const { counts, storage } = await settle(stack, result.served, 90_000, [...expected.keys()]);
      const window = (from: number, to: number) =>
        result.latencies.filter((l) => l.at >= from && l.at < to);
      const before = window(0, killedAt);
      const duringOutage = window(killedAt, restartedAt);
      const afterRestart = window(restartedAt, Number.MAX_SAFE_INTEGER);
      const p99 = (latencies: { ms: number }[]): string =>
        `${quantile(latencies, 0.99).toFixed(1)} ms`;
      const lags = await lag;
      const worstLag = lags.reduce((worst, s) => (s.value > worst.value ? s : worst), lags[0]!);
      const dropped = await metric(redirect, 'visit_events_dropped_total');
      report(
        'scenario 1 kafka-killed',
        result,
        counts,
        `latency p50 ${quantile(result.latencies, 0.5).toFixed(1)} ms, p99 ${p99(result.latencies)}, ` +
          `max ${quantile(result.latencies, 1).toFixed(1)} ms; p99 before the kill ${p99(before)}, ` +
          `while Kafka was down ${p99(duringOutage)} (${duringOutage.length} answers), ` +
          `after the restart ${p99(afterRestart)}; redirect event-loop lag max ` +
          `${(worstLag.value * 1000).toFixed(0)} ms at ${((worstLag.at - result.startedAt) / 1000).toFixed(0)} s ` +
          `(kill at ${((killedAt - result.startedAt) / 1000).toFixed(0)} s, restart at ` +
          `${((restartedAt - result.startedAt) / 1000).toFixed(0)} s); ` +
          `visits queued in the redirect after ${DOWN_MS / 1000} s down ${queuedWhileDown}; ` +
          `broker ready ${(brokerBackMs / 1000).toFixed(1)} s after restart; dropped ${dropped}`,
      );

      expect(percent302(result)).toBe(100);
      expect(result.skipped).toBe(0);
      // Visits really waited in memory while the broker was away, and none was dropped.
      expect(queuedWhileDown).toBeGreaterThan(0);
      expect(dropped).toBe(0);
      // Nothing on the redirect path waits for Kafka: a redirect that did would take seconds.
      expect(quantile(duringOutage, 0.99)).toBeLessThan(500);
      expectStoredOnce({ counts, storage });
    },
  );
});
