import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor, type ServiceProcess } from '@shortener/testkit';
import { groupMembers } from './support/kafka-control';
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

// Scenario 10, the check of docs/capacity.md: the deployment's shape in small, three
// redirect instances behind a balancer and two analytics consumers sharing the visits
// topic's partitions, under load, with rebalances in the middle (one consumer is frozen
// until its partitions move to the other, then thawed: they move back). Every visit served
// is stored once; the line printed gives what each part carried.

const RATE = 300;
const LOAD_MS = 40_000;
const FREEZE_AFTER_MS = 8000;

/** Both consumers of the group holding partitions, the group stable: their counts. */
function bothHolding(group: string, what: string): Promise<number[]> {
  return waitFor(
    async () => {
      const { state, partitions } = await groupMembers(group);
      return state === 'Stable' && partitions.length === 2 && partitions.every((n) => n > 0)
        ? partitions
        : undefined;
    },
    { what, timeoutMs: 45_000, intervalMs: 500 },
  );
}

describe('scenario 10: three redirects and two consumers under load, with a rebalance', () => {
  let load: RedirectLoad | undefined;
  let stack: FaultStack | undefined;

  beforeAll(async () => {
    stack = await FaultStack.startReady('capacity', {}, [
      ['redirect'],
      ['redirect'],
      ['analytics'],
    ]);
  });

  afterAll(async () => {
    await load?.stop();
    await stack?.stop();
  });

  it('stores every visit once while the partitions move and come back', async () => {
    const group = stack!.group;
    const redirects = stack!.all('redirect');
    expect(redirects).toHaveLength(3);
    const before = await bothHolding(group, 'both consumers holding partitions');
    // Enough links that every partition gets visits (events are keyed by code), made ten at
    // a time: links, on a busy machine beside six other services, times out on 60 at once.
    const expected = new Map<string, string>();
    for (let i = 0; i < 6; i += 1) {
      for (const [code, url] of await createLinks(stack!.client('links'), 'capacity', 10)) {
        expected.set(code, url);
      }
    }
    const perTarget = new Map<string, number>();
    load = new RedirectLoad({
      targets: redirects.map((redirect) => redirect.url),
      expected,
      ratePerSecond: RATE,
      durationMs: LOAD_MS,
      onAnswer: (answer) => {
        if (answer.status === 302) {
          perTarget.set(answer.target, (perTarget.get(answer.target) ?? 0) + 1);
        }
      },
    });
    await sleep(FREEZE_AFTER_MS);
    const second = stack!.all('analytics')[1] as ServiceProcess;
    // Frozen, as a consumer is by a long pause or a stalled node: the group drops it after
    // its session timeout and gives its partitions to the other, a batch of its own perhaps
    // half stored; thawed, it finds itself out of the group and joins again.
    second.child.kill('SIGSTOP');
    let alone: number[];
    try {
      alone = await waitFor(
        async () => {
          const { state, partitions } = await groupMembers(group);
          return state === 'Stable' && partitions.length === 1 ? partitions : undefined;
        },
        // The session timeout, then a rebalance that waits for the other's batch in progress:
        // beside the browser lane that took over 45 s once.
        { what: 'the other consumer holding every partition', timeoutMs: 90_000, intervalMs: 500 },
      );
    } finally {
      second.child.kill('SIGCONT');
    }
    const after = await bothHolding(group, 'the thawed consumer holding partitions again');

    const result = await load.done;
    const { counts, storage } = await settle(stack!, result.served, 90_000, [...expected.keys()]);
    const [first] = stack!.all('analytics') as [ServiceProcess];
    const byFirst = await metric(first, 'analytics_visits_stored_total');
    const bySecond = await metric(second, 'analytics_visits_stored_total');
    const duplicates =
      (await metric(first, 'analytics_visits_duplicate_total')) +
      (await metric(second, 'analytics_visits_duplicate_total'));
    const dropped = (
      await Promise.all(redirects.map((r) => metric(r, 'visit_events_dropped_total')))
    ).reduce((a, b) => a + b, 0);
    report(
      'scenario 10 capacity',
      result,
      counts,
      `${RATE}/s for ${LOAD_MS / 1000} s over 3 redirects (302s each: ` +
        `${redirects.map((r) => perTarget.get(r.url) ?? 0).join(' + ')}), ` +
        `2 consumers (partitions ${before.join('+')} before, ${alone.join('')} while one was ` +
        `frozen, ${after.join('+')} after; stored ${byFirst} + ${bySecond}, redelivered and refused by event id ` +
        `${duplicates}); dropped ${dropped}`,
    );

    expect(percent302(result)).toBe(100);
    // Not asserted: requests skipped because 512 were already waiting (printed). On a machine
    // this busy the redirects fall behind at times; what this checks is that what they
    // served is stored once.
    expect(dropped).toBe(0);
    // Every instance carried its share, and both consumers stored visits.
    for (const redirect of redirects) expect(perTarget.get(redirect.url)).toBeGreaterThan(0);
    expect(byFirst).toBeGreaterThan(0);
    expect(bySecond).toBeGreaterThan(0);
    expectStoredOnce({ counts, storage });
  });
});
