import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceProcess } from '@shortener/testkit';
import { RedirectLoad } from './support/load';
import {
  checkStorage,
  createLinks,
  FaultStack,
  metric,
  ready,
  report,
  settledCounts,
  tally,
} from './support/scenario';

// Scenario 9: the redirect instance is killed hard (SIGKILL: the OOM killer, an evicted
// pod, a crash) while serving 1,000 redirects a second, and started again on the same spool
// folder (VISIT_SPOOL_DIR, an emptyDir in Kubernetes). Every visit answered with a 302 must
// be stored exactly once: those Kafka had not acknowledged come back from the spool, and
// those it had are published again and skipped by event id. Publishing only every 2 s makes
// sure there are visits waiting at the kill. A request the process had read when it died
// gets no answer (its client sees the connection reset), yet its visit may have reached the
// spool in the turn it was read: such a visit is stored at most once.

const RATE = 1000;

const sum = (values: Iterable<number>): number => [...values].reduce((a, b) => a + b, 0);

function recoveredAtStart(service: ServiceProcess): number {
  for (const line of service.output().split('\n')) {
    if (!line.includes('visits spooled by an earlier process')) continue;
    try {
      return (JSON.parse(line) as { visits?: number }).visits ?? 0;
    } catch {
      return 0;
    }
  }
  return 0;
}

describe('scenario 9: the redirect instance is SIGKILLed under load and restarted on its spool', () => {
  let load: RedirectLoad | undefined;
  let stack: FaultStack | undefined;
  const spool = mkdtempSync(path.join(tmpdir(), 'visit-spool-'));

  beforeAll(async () => {
    stack = await FaultStack.startReady('redirect-sigkill', {
      serviceEnv: {
        redirect: {
          VISIT_SPOOL_DIR: spool,
          VISIT_FLUSH_INTERVAL_MS: '2000',
          VISIT_BATCH_MAX: '50000',
          LOG_LEVEL: 'info',
        },
      },
    });
  });

  afterAll(async () => {
    await load?.stop();
    await stack?.stop();
    rmSync(spool, { recursive: true, force: true });
  });

  it('stores every visit it answered, once', async () => {
    const expected = await createLinks(stack!.client('links'), 'redirect-sigkill');
    const before = stack!.get('redirect');
    load = new RedirectLoad({
      targets: [before.url],
      expected,
      ratePerSecond: RATE,
      durationMs: 12_000,
    });
    await sleep(5000);
    const queued = await metric(before, 'visit_queue_depth');
    const spooledFiles = readdirSync(spool).filter((name) => name.endsWith('.spool')).length;
    const after = await stack!.restart(before, 'SIGKILL');
    await ready(after);
    const result = await load.done;

    const stored = await settledCounts(stack!, result.served, 60_000);
    const counts = tally(result.served, stored);
    // Requests in flight at the kill, by code: their visits may be stored, unanswered.
    const unanswered = new Map<string, number>();
    for (const failure of result.failures) {
      if (failure.code !== 'ECONNRESET') continue;
      unanswered.set(failure.link, (unanswered.get(failure.link) ?? 0) + 1);
    }
    const beyondUnanswered = [...stored]
      .filter(([code, n]) => n > (result.served.get(code) ?? 0) + (unanswered.get(code) ?? 0))
      .map(([code, n]) => `${code}: served ${result.served.get(code) ?? 0}, stored ${n}`);
    const storage = await checkStorage([...result.served.keys()]);
    const recovered = recoveredAtStart(after);
    report(
      'scenario 9 redirect-sigkill',
      result,
      counts,
      `visits queued at the kill ${queued} (spool segments ${spooledFiles}), ` +
        `published again from the spool ${recovered}; stored though unanswered ` +
        `${counts.doubled} (of ${sum(unanswered.values())} reset at the kill)`,
    );

    // The kill found visits not yet published, and the next process found them on disk.
    expect(queued).toBeGreaterThan(0);
    expect(recovered).toBeGreaterThanOrEqual(queued);
    // Every answered visit stored, none more than once, and no visit but those answered or
    // cut off by the kill.
    expect(counts.lost).toBe(0);
    expect(beyondUnanswered).toEqual([]);
    expect(storage.duplicateIds).toBe(0);
    expect(storage.statsMismatches).toEqual([]);
  });
});
