import { setTimeout as sleep } from 'node:timers/promises';
import { internalApi } from '@shortener/contracts';
import type { ServiceProcess } from '@shortener/testkit';
import { RedirectLoad, type Answer } from './support/load';
import { createLinks, expectStoredOnce, FaultStack, report, settle } from './support/scenario';

// Editing hot links under load (issue 28, item 2): two redirect instances serve a steady load
// of GET /r/{code} while ten of the codes get a new destination, twice. Each instance keeps
// links in its memory for 30 s here (LOCAL_CACHE_TTL_MS), so only the broadcast deletions
// use can make it follow an edit in time: no redirect to the old destination may be answered
// later than 1 s after the edit's answer, and every visit served, old destination or new,
// is stored. The edits go to the links service's updateLink (PATCH), whose answer comes once
// the change is made and broadcast; the gateway's PATCH answers after it.

const SCENARIO = 'edit-propagation';
const EDITED = 10;
const BOUND_MS = 1000;
const OWNER = { userId: `faults-${SCENARIO}` };

interface Edit {
  code: string;
  /** The destination before this edit: none of its redirects may come later than the bound. */
  old: string;
  answeredAt: number;
}

describe('editing hot links under load, on two redirect instances', () => {
  let load: RedirectLoad | undefined;
  let stack: FaultStack | undefined;

  beforeAll(async () => {
    stack = await FaultStack.startReady(
      SCENARIO,
      { serviceEnv: { redirect: { LOCAL_CACHE_TTL_MS: '30000' } } },
      [['redirect']],
    );
  });

  afterAll(async () => {
    await load?.stop();
    await stack?.stop();
  });

  it('serves the new destination everywhere within 1 s of the answer, losing no visit', async () => {
    const instances = stack!.all('redirect') as [ServiceProcess, ServiceProcess];
    const links = stack!.client('links');
    const expected = await createLinks(links, SCENARIO);
    const hot = [...expected.keys()].slice(0, EDITED);
    // Every destination a code has had: a redirect to any of them is a visit served.
    const destinations = new Map([...expected].map(([code, url]) => [code, new Set([url])]));
    const answers: Answer[] = [];
    load = new RedirectLoad({
      targets: instances.map((instance) => instance.url),
      expected,
      ratePerSecond: 400,
      durationMs: 14_000,
      failover: true,
      accepts: (code, location) =>
        location !== undefined && !!destinations.get(code)?.has(location),
      onAnswer: (answer) => {
        if (hot.includes(answer.code)) answers.push(answer);
      },
    });

    const edits: Edit[] = [];
    const current = new Map(expected);
    for (const round of [1, 2]) {
      // Long enough for every hot code to be in both instances' memory (and, the second
      // time, for the first round's bound to have passed under load).
      await sleep(4000);
      await Promise.all(
        hot.map(async (code) => {
          const url = `https://example.org/edited/${round}/${code}`;
          // Accepted before it is asked for: the first redirect to it may come before the answer.
          destinations.get(code)!.add(url);
          const response = await links.call(internalApi.updateLink, {
            identity: OWNER,
            params: { code },
            body: { url },
          });
          const answeredAt = Date.now();
          if (response.status !== 200) throw new Error(`edit refused: ${response.status}`);
          edits.push({ code, old: current.get(code)!, answeredAt });
          current.set(code, url);
        }),
      );
    }
    const result = await load.done;

    // Per instance: the latest answer with an old destination, after the edit's answer.
    const worst = new Map(instances.map((instance) => [instance.url, 0]));
    const late: string[] = [];
    for (const edit of edits) {
      for (const answer of answers) {
        if (answer.code !== edit.code || answer.location !== edit.old) continue;
        const after = answer.answeredAt - edit.answeredAt;
        if (after <= 0) continue;
        worst.set(answer.target, Math.max(worst.get(answer.target)!, after));
        if (after > BOUND_MS)
          late.push(`${edit.code} ${after} ms after the edit on ${answer.target}`);
      }
    }
    const newSeen = hot.filter((code) =>
      answers.some((answer) => answer.code === code && answer.location === current.get(code)),
    );

    const { counts, storage } = await settle(stack!, result.served, 60_000);
    const propagation = instances
      .map((instance, i) => `instance ${i + 1} ${worst.get(instance.url)} ms`)
      .join(', ');
    report(
      `edit propagation`,
      result,
      counts,
      `${edits.length} edits of ${EDITED} hot codes; propagation (worst time from an edit's ` +
        `answer to the last redirect to its old destination): ${propagation}`,
    );

    expect(edits).toHaveLength(EDITED * 2);
    expect(late).toEqual([]);
    // Both destinations were really served: the new one after the edits, on the hot codes.
    expect(newSeen).toEqual(hot);
    expect(result.outcomes.get('wrong-location') ?? 0).toBe(0);
    expectStoredOnce({ counts, storage });
  });
});
