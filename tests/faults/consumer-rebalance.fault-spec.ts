import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor, type ServiceProcess } from '@shortener/testkit';
import { groupMembers } from './support/kafka-control';
import { RedirectLoad } from './support/load';
import {
  createLinks,
  expectStoredOnce,
  FaultStack,
  percent302,
  report,
  settle,
} from './support/scenario';

// Scenario 6: two analytics consumers share the group's partitions; one is stopped under
// load. The partitions it held move to the other, which carries on from the committed
// offsets: nothing lost (uncommitted batches are read again), nothing doubled (by event id).

describe('scenario 6: one of two analytics consumers stops under load', () => {
  let load: RedirectLoad | undefined;
  let stack: FaultStack | undefined;

  beforeAll(async () => {
    stack = await FaultStack.startReady('rebalance', {}, [['analytics']]);
  });

  afterAll(async () => {
    await load?.stop();
    await stack?.stop();
  });

  it('moves the partitions to the one left and the counts still match', async () => {
    const group = stack!.group;
    const [, second] = stack!.all('analytics') as [ServiceProcess, ServiceProcess];
    const shared = await waitFor(
      async () => {
        const { state, partitions } = await groupMembers(group);
        return state === 'Stable' && partitions.length === 2 && partitions.every((n) => n > 0)
          ? partitions
          : undefined;
      },
      { what: 'both consumers holding partitions', timeoutMs: 30_000, intervalMs: 500 },
    );
    const expected = await createLinks(stack!.client('links'), 'rebalance');
    load = new RedirectLoad({
      targets: [stack!.get('redirect').url],
      expected,
      ratePerSecond: 500,
      durationMs: 14_000,
    });
    await sleep(6000);
    const exitCode = await second.stop('SIGTERM');
    const left = await waitFor(
      async () => {
        // While the group rebalances its one member holds nothing yet: wait until it is stable.
        const { state, partitions } = await groupMembers(group);
        return state === 'Stable' && partitions.length === 1 ? partitions : undefined;
      },
      { what: 'one consumer holding every partition', timeoutMs: 45_000, intervalMs: 500 },
    );
    const result = await load.done;
    const { counts, storage } = await settle(stack!, result.served, 60_000, [...expected.keys()]);
    report(
      'scenario 6 rebalance',
      result,
      counts,
      `partitions per consumer before ${shared.join('+')}, after ${left.join('')}; ` +
        `stopped consumer exited ${exitCode}`,
    );

    expect(left).toEqual([shared.reduce((a, b) => a + b, 0)]);
    expect(exitCode).toBe(0);
    expect(percent302(result)).toBe(100);
    expectStoredOnce({ counts, storage });
  });
});
