import { setTimeout as sleep } from 'node:timers/promises';
import { hostPort, TcpProxy, testServers, viaPort } from '@shortener/testkit';
import { committedTotal } from './support/kafka-control';
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

// Scenario 3: PostgreSQL is unreachable from the analytics consumer for 15 s (a proxy the
// test cuts; the server itself, shared with everyone, is never touched). The consumer must
// stop committing offsets, retry with back-off, and resume; redirects go on from Redis.

const OUTAGE_MS = 15_000;

describe('scenario 3: PostgreSQL unreachable from analytics for 15 s', () => {
  let load: RedirectLoad | undefined;
  let stack: FaultStack | undefined;
  let database: TcpProxy | undefined;

  beforeAll(async () => {
    database = await new TcpProxy(hostPort(testServers.databaseUrl)).listen();
    stack = await FaultStack.startReady('postgres-away', {
      serviceEnv: { analytics: { DATABASE_URL: viaPort(testServers.databaseUrl, database.port) } },
    });
  });

  afterAll(async () => {
    await load?.stop();
    database?.restore();
    await stack?.stop();
    await database?.close();
  });

  it('holds its offsets while the database is away, retries, and loses nothing', async () => {
    const redirect = stack!.get('redirect');
    const analytics = stack!.get('analytics');
    const expected = await createLinks(stack!.client('links'), 'postgres-away');
    load = new RedirectLoad({
      targets: [redirect.url],
      expected,
      ratePerSecond: 500,
      durationMs: 27_000,
    });
    await sleep(5000);
    const retriesBefore = await metric(analytics, 'analytics_batch_retries_total');
    let offsets: bigint[] = [];
    let retries = 0;
    const cutAt = Date.now();
    database!.cut();
    try {
      // A batch already committed to PostgreSQL may commit its offset just after the cut.
      await sleep(1500);
      offsets.push(await committedTotal(stack!.group));
      await sleep(cutAt + OUTAGE_MS - 1000 - Date.now());
      offsets.push(await committedTotal(stack!.group));
      retries = (await metric(analytics, 'analytics_batch_retries_total')) - retriesBefore;
    } finally {
      await sleep(Math.max(0, cutAt + OUTAGE_MS - Date.now()));
      database!.restore();
    }
    const result = await load.done;
    const { counts, storage } = await settle(stack!, result.served, 60_000, [...expected.keys()]);
    offsets = [...offsets, await committedTotal(stack!.group)];
    report(
      'scenario 3 postgres-away',
      result,
      counts,
      `committed offsets (sum) during the outage ${offsets[0]} → ${offsets[1]}, after ${offsets[2]}; ` +
        `batch retries while away ${retries}`,
    );

    // Nothing was committed while nothing could be stored; afterwards the backlog was.
    expect(offsets[1]).toBe(offsets[0]);
    expect(offsets[2]! > offsets[1]!).toBe(true);
    // Retried with back-off (250 ms doubling to 10 s): a handful of attempts, not a busy loop.
    expect(retries).toBeGreaterThan(0);
    expect(retries).toBeLessThan(200);
    expect(percent302(result)).toBe(100);
    expectStoredOnce({ counts, storage });
  });
});
