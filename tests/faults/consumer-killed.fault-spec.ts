import { setTimeout as sleep } from 'node:timers/promises';
import { hostPort, testServers, viaPort, waitFor } from '@shortener/testkit';
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

// Scenario 2: the analytics consumer is SIGKILLed in the middle of a batch, three times, and
// started again. "In the middle" is made exact by a proxy before PostgreSQL that lets the
// consumer's statements through and holds the answers from a chosen one on: the process dies
// with the batch's rows inserted but not committed, with the commit done but the Kafka offset
// not, and with the link counts raised but not committed. Every visit must end up stored once.

const KILL_POINTS = [
  { marker: 'INSERT INTO analytics.visits', what: 'visits inserted, not committed' },
  { marker: 'COMMIT', what: 'batch committed, offset not' },
  { marker: 'INSERT INTO analytics.link_stats', what: 'counts raised, not committed' },
] as const;

describe('scenario 2: the analytics consumer is killed mid-batch three times', () => {
  let load: RedirectLoad | undefined;
  let stack: FaultStack | undefined;
  let database: ReplyHoldingProxy | undefined;

  beforeAll(async () => {
    database = await new ReplyHoldingProxy(hostPort(testServers.databaseUrl)).listen();
    stack = await FaultStack.startReady('consumer-killed', {
      serviceEnv: { analytics: { DATABASE_URL: viaPort(testServers.databaseUrl, database.port) } },
    });
  });

  afterAll(async () => {
    await load?.stop();
    database?.release();
    await stack?.stop();
    await database?.close();
  });

  it('stores every visit once across the restarts', async () => {
    const redirect = stack!.get('redirect');
    const expected = await createLinks(stack!.client('links'), 'consumer-killed');
    // Bounded by time, and stopped as soon as the third restart is storing visits again;
    // each restart waits for the group to drop the killed member (its session timeout).
    load = new RedirectLoad({
      targets: [redirect.url],
      expected,
      ratePerSecond: 200,
      durationMs: 150_000,
    });
    const kills: string[] = [];
    let redelivered = 0;
    try {
      for (const point of KILL_POINTS) {
        const began = Date.now();
        await database!.holdRepliesAfter(point.marker, 60_000);
        const caughtAt = Date.now();
        const analytics = stack!.get('analytics');
        // The duplicates this instance skipped: redeliveries of the batch of the last kill.
        redelivered += await metric(analytics, 'analytics_visits_duplicate_total');
        const killedAt = Date.now();
        const restarted = stack!.restart(analytics, 'SIGKILL');
        await analytics.exited;
        // The killed process's connections are closed: PostgreSQL rolls back what was open.
        database!.release();
        const again = await restarted;
        const since = (at: number): string => `${((at - killedAt) / 1000).toFixed(1)} s`;
        const startedAt = Date.now();
        // Visits flowing again: the new instance has stored a visit it had not stored before
        // (a redelivered one it skips does not count), the load having gone on all along.
        const [joinedAt, storingAt] = await Promise.all([
          waitFor(async () => (await fetch(`${again.url}/readyz`)).ok && Date.now(), {
            what: 'the restarted consumer in its group',
            timeoutMs: 60_000,
          }),
          waitFor(
            async () => (await metric(again, 'analytics_visits_stored_total')) > 0 && Date.now(),
            { what: 'the restarted consumer storing visits', timeoutMs: 60_000 },
          ),
        ]);
        kills.push(
          `${point.what} (caught ${((caughtAt - began) / 1000).toFixed(1)} s in; after the kill: ` +
            `process up ${since(startedAt)}, group joined ${since(joinedAt)}, ` +
            `visits stored again ${since(storingAt)})`,
        );
      }
      await sleep(3000);
    } finally {
      database!.release();
      await load.stop();
    }
    const result = await load.done;

    const { counts, storage } = await settle(stack!, result.served, 90_000, [...expected.keys()]);
    redelivered += await metric(stack!.get('analytics'), 'analytics_visits_duplicate_total');
    report(
      'scenario 2 consumer-killed',
      result,
      counts,
      `killed: ${kills.join('; ')}; redelivered events skipped ${redelivered}`,
    );

    expect(kills).toHaveLength(3);
    expect(percent302(result)).toBe(100);
    // How many redelivered events were skipped is reported above, not asserted: whether the
    // second kill lands after PostgreSQL applied the COMMIT depends on timing (seen 13,891
    // and 0 in two runs). What must hold whatever the timing is asserted below.
    expectStoredOnce({ counts, storage });
  });
});
