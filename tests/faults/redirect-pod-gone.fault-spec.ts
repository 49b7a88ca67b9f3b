import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceProcess } from '@shortener/testkit';
import { brokerReachable, killBroker, startBroker, usesLocalBroker } from './support/kafka-control';
import { RedirectLoad } from './support/load';
import {
  createLinks,
  expectStoredOnce,
  FaultStack,
  metric,
  percent302,
  report,
  settle,
} from './support/scenario';

// Scenario 11: a redirect pod is deleted during a Kafka outage (a rollout, a scale-down, a
// node drain) and its volume goes with it. The broker is SIGKILLed under load, the redirect
// answers on and queues (and spools) the visits, then gets SIGTERM; its spool folder is
// deleted as soon as it has exited, as Kubernetes deletes a pod's emptyDir, and the broker
// comes back. Every visit answered with a 302 must be stored once: what Kafka did not take,
// the stopping instance hands to analytics' internal ingest, which stores by event id as the
// consumer does (a batch Kafka had taken unacknowledged when it died is stored once too).

const RATE = 200;
const KILL_AFTER_MS = 3000;
/** Load with the broker down, from when the kill has returned (on a busy machine it is slow). */
const DOWN_LOAD_MS = 5000;

// infra can only kill and restart this checkout's own broker, not a cluster KAFKA_BROKERS names.
const local = usesLocalBroker() ? it : it.skip;

/** The JSON log line of a service that holds `text`, or undefined. */
function loggedLine(service: ServiceProcess, text: string): Record<string, unknown> | undefined {
  const line = service
    .output()
    .split('\n')
    .find((candidate) => candidate.includes(text));
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
}

describe('scenario 11: a redirect pod is deleted with its spool while Kafka is away', () => {
  let load: RedirectLoad | undefined;
  let stack: FaultStack | undefined;
  const spool = mkdtempSync(path.join(tmpdir(), 'visit-spool-'));

  beforeAll(async () => {
    // A run that died mid-scenario may have left this checkout's broker down.
    if (usesLocalBroker() && !(await brokerReachable())) await startBroker();
    stack = await FaultStack.startReady('redirect-pod-gone', {
      serviceEnv: { redirect: { VISIT_SPOOL_DIR: spool, LOG_LEVEL: 'info' } },
    });
  });

  afterAll(async () => {
    await load?.stop();
    await stack?.stop();
    rmSync(spool, { recursive: true, force: true });
  });

  local('hands every visit Kafka did not take to analytics before it exits', async () => {
    const redirect = stack!.get('redirect');
    const expected = await createLinks(stack!.client('links'), 'redirect-pod-gone');
    load = new RedirectLoad({
      targets: [redirect.url],
      expected,
      ratePerSecond: RATE,
      // Stopped once the broker has been down for DOWN_LOAD_MS.
      durationMs: 120_000,
    });
    await sleep(KILL_AFTER_MS);

    let queued = 0;
    let exitCode: number | null = null;
    let stoppingMs = 0;
    let segmentsLeft: string[] = [];
    // Set before the call: should it fail half-way, the broker is brought back all the same.
    let mustRestart = true;
    try {
      const killed = await killBroker();
      mustRestart = killed.stopped;
      if (!killed.stopped) throw new Error('no broker started by infra/infra.mjs to kill');
      await sleep(DOWN_LOAD_MS);
      await load.stop();
      queued = await metric(redirect, 'visit_queue_depth');
      const stoppedAt = Date.now();
      redirect.child.kill('SIGTERM');
      exitCode = await redirect.exited;
      stoppingMs = Date.now() - stoppedAt;
      segmentsLeft = readdirSync(spool).filter((name) => name.endsWith('.spool'));
      // The pod is gone, and its emptyDir with it.
      rmSync(spool, { recursive: true, force: true });
    } finally {
      // Shared by everyone on this machine: always brought back, even when the test fails.
      if (mustRestart) await startBroker();
    }
    const result = await load.done;

    const { counts, storage } = await settle(stack!, result.served, 90_000, [...expected.keys()]);
    const handedOff = loggedLine(redirect, 'handed to analytics');
    const lost = loggedLine(redirect, 'lost at shutdown');
    report(
      'scenario 11 redirect-pod-gone',
      result,
      counts,
      `visits queued at SIGTERM ${queued}, handed to analytics ${String(handedOff?.['handedOff'])} ` +
        `in ${String(handedOff?.['ms'])} ms, ` +
        `stopped in ${(stoppingMs / 1000).toFixed(1)} s with exit code ${exitCode}, ` +
        `spool segments left ${segmentsLeft.length}`,
    );

    expect(percent302(result)).toBe(100);
    // Visits really waited for Kafka, and the stopping instance handed them all over.
    expect(queued).toBeGreaterThan(0);
    expect(handedOff?.['handedOff']).toBeGreaterThanOrEqual(queued);
    expect(lost).toBeUndefined();
    // What it handed off left the spool: nothing was left there for a next container.
    expect(segmentsLeft).toEqual([]);
    expect(exitCode).toBe(0);
    expectStoredOnce({ counts, storage });
  });
});
