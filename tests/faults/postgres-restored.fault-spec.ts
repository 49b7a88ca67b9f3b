import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { Client } from 'pg';
import {
  REPO_ROOT,
  startServiceProcess,
  testServers,
  type ServiceProcess,
} from '@shortener/testkit';
import { RedirectLoad } from './support/load';
import {
  createDatabase,
  databaseUrlOf,
  dropDatabase,
  dump,
  postgresBin,
  restore,
} from './support/postgres-backup';
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

// Scenario 10: PostgreSQL is backed up with pg_dump while redirects are served under load,
// then lost (the database dropped, as a lost volume takes it), restored from the dump and the
// analytics consumer group rewound to before the dump, as docs/operations.md ("Backups and
// restore") tells an operator to: stop analytics, restore, rewind with the analytics image's
// command, flush the link cache, start analytics. Redirects go on throughout; afterwards
// every visit served is stored exactly once, those the dump already held replayed and
// skipped by event id. Links created after the dump are gone, and the test pins what becomes
// of them: their visits are stored all the same (analytics never asks links about a code),
// and once the link cache is flushed their codes answer 404.
//
// The stack runs on a scratch database of its own (<test database>_restore_<random>), made
// and dropped here: the test database itself is never dropped.

const exec = promisify(execFile);

/** The guide's rule: rewind to at least a minute before the dump began. */
const REWIND_MARGIN_MS = 60_000;
/** How long after the link cache is flushed a 503 may still be answered (see below). */
const FLUSH_GRACE_MS = 10_000;
/** Served on after analytics is back, so that the restored stack is seen working too. */
const AFTER_MS = 8000;

interface RewindOutput {
  replayed: string;
  partitions: { partition: number; committed: string | null; offset: string }[];
}

/** The guide's rewind: `node dist/rewind-visits.js --to <time>` in the analytics image. */
async function rewindCommand(
  stack: FaultStack,
  databaseUrl: string,
  to: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = path.join(REPO_ROOT, 'services', 'analytics', 'dist', 'rewind-visits.js');
  try {
    const { stdout, stderr } = await exec(
      process.execPath,
      [script, '--to', new Date(to).toISOString()],
      {
        env: { ...process.env, ...stack.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
        timeout: 60_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/**
 * Starts analytics again on its port, with the same environment, as scaling it back up does.
 * Its /readyz is waited for below, longer than the testkit's 20 s for /healthz: a Nest
 * service takes 10 s or more to start on a 2-core machine a whole team shares.
 */
function startAgain(stack: FaultStack, stopped: ServiceProcess): Promise<ServiceProcess> {
  return startServiceProcess('analytics', stopped.port, stack.env, { waitForHealth: false });
}

/** The guide's flush of the link cache: every `link:{code}` key, nothing else. */
async function flushLinkCache(redis: Redis): Promise<number> {
  let deleted = 0;
  for await (const keys of redis.scanStream({ match: 'link:*', count: 500 })) {
    const batch = keys as string[];
    if (batch.length > 0) deleted += await redis.unlink(...batch);
  }
  return deleted;
}

async function codesInLinks(databaseUrl: string, codes: string[]): Promise<string[]> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ code: string }>(
      'SELECT code FROM links.links WHERE code = ANY($1::varchar[])',
      [codes],
    );
    return rows.map((row) => row.code);
  } finally {
    await db.end();
  }
}

describe('scenario 10: PostgreSQL dumped under load, lost, restored and the group rewound', () => {
  const scratch = databaseUrlOf(
    testServers.databaseUrl,
    `${new URL(testServers.databaseUrl).pathname.slice(1)}_restore_${randomBytes(4).toString('hex')}`,
  );
  const folder = mkdtempSync(path.join(tmpdir(), 'shortener-backup-'));
  const loads: RedirectLoad[] = [];
  let stack: FaultStack | undefined;
  let redis: Redis | undefined;
  /** Analytics started again after the restore: not one of the stack's own instances. */
  let restarted: ServiceProcess | undefined;

  beforeAll(async () => {
    await createDatabase(scratch);
    stack = await FaultStack.startReady('postgres-restored', {
      env: { DATABASE_URL: scratch },
      // The codes lost with the restore answer 404 to one loopback client under load: the
      // miss budget per client, which would turn them into 429s, is raised out of the way.
      serviceEnv: { redirect: { REDIRECT_MISS_BUDGET: '1000000', REDIRECT_MISS_BURST: '1000000' } },
    });
    redis = new Redis(testServers.redisUrl, { maxRetriesPerRequest: 1 });
  });

  afterAll(async () => {
    await Promise.all(loads.map((load) => load.stop()));
    await restarted?.stop();
    await stack?.stop();
    await redis?.quit();
    await dropDatabase(scratch);
    rmSync(folder, { recursive: true, force: true });
  });

  it('serves throughout, and counts every visit once after the restore and the rewind', async () => {
    const bin = await postgresBin(scratch);
    const file = path.join(folder, 'shortener.dump');
    const redirect = stack!.get('redirect');
    const analytics = stack!.get('analytics');
    const expected = await createLinks(stack!.client('links'), 'postgres-restored');
    // What went wrong when, for the report: answers other than a 302, and each step's time.
    const unserved: { at: number; status: number }[] = [];
    const steps: [string, number][] = [];
    const load = new RedirectLoad({
      targets: [redirect.url],
      expected,
      ratePerSecond: 250,
      durationMs: 180_000,
      onAnswer: ({ status, answeredAt }) => {
        if (status !== 302) unserved.push({ at: answeredAt, status });
      },
    });
    loads.push(load);
    const began = Date.now();
    const step = (name: string) => steps.push([name, Date.now()]);
    await sleep(5000);

    const dumpStartedAt = Date.now();
    step('dump');
    const dumpMs = await dump(bin, scratch, file);
    // Links made after the dump, and visited: the restore will not bring them back.
    const late = await createLinks(stack!.client('links'), 'postgres-restored-late', 10);
    const lateLoad = new RedirectLoad({
      targets: [redirect.url],
      expected: late,
      ratePerSecond: 30,
      durationMs: 180_000,
    });
    loads.push(lateLoad);
    await sleep(4000);

    // The volume is lost: every session ended, the database gone.
    await dropDatabase(scratch);
    step('dropped');
    const deadLettered = await metric(analytics, 'analytics_visits_dead_lettered_total');
    // The guide's order: the rewind refuses while a consumer is in the group.
    const early = await rewindCommand(stack!, scratch, dumpStartedAt - REWIND_MARGIN_MS);
    await analytics.stop('SIGTERM');
    step('analytics stopped');
    // Served with no database at all for a while, as while a restore is prepared.
    await sleep(3000);
    await createDatabase(scratch);
    const restoreMs = await restore(bin, scratch, file);
    step('restored');
    const rewind = await rewindCommand(stack!, scratch, dumpStartedAt - REWIND_MARGIN_MS);
    step('rewound');
    // The guide: links answers from the restored database before its cache is emptied.
    await ready(stack!.get('links'));
    const flushed = await flushLinkCache(redis!);
    step('flushed');
    const flushedAt = Date.now();
    restarted = await startAgain(stack!, analytics);
    const again = restarted;
    await ready(again, 90_000);
    step('analytics back');
    await sleep(AFTER_MS);

    const result = await load.stop();
    const lateResult = await lateLoad.stop();
    const stored = await settledCounts(stack!, result.served, 90_000);
    const lateStored = await settledCounts(stack!, lateResult.served, 30_000);
    const counts = tally(result.served, stored);
    const lateCounts = tally(lateResult.served, lateStored);
    const storage = await checkStorage([...expected.keys(), ...late.keys()], scratch);
    const duplicates = await metric(again, 'analytics_visits_duplicate_total');
    const deadLetteredAfter = await metric(again, 'analytics_visits_dead_lettered_total');
    const lateAnswers = await Promise.all(
      [...late.keys()].map(async (code) => {
        const response = await fetch(`${redirect.url}/r/${code}`, { redirect: 'manual' });
        return response.status;
      }),
    );
    const lateOutcomes = [...lateResult.outcomes]
      .map(([outcome, n]) => `${outcome}×${n}`)
      .join(' ');
    const rewound = rewind.code === 0 ? (JSON.parse(rewind.stdout) as RewindOutput) : undefined;
    const seconds = (at: number) => ((at - began) / 1000).toFixed(1);
    const timeline = [
      ...steps.map(([name, at]) => `${name} ${seconds(at)} s`),
      ...[...new Set(unserved.map(({ status }) => status))].map((status) => {
        const times = unserved.filter((answer) => answer.status === status).map(({ at }) => at);
        return `${times.length}× ${status} from ${seconds(Math.min(...times))} to ${seconds(Math.max(...times))} s`;
      }),
    ].join(', ');
    report(
      'scenario 10 postgres-restored',
      result,
      counts,
      `pg_dump ${dumpMs} ms, pg_restore and analyze ${restoreMs} ms; rewound to ${REWIND_MARGIN_MS / 1000} s ` +
        `before the dump: ${rewound?.replayed ?? '?'} records replayed, ${duplicates} visits ` +
        `already stored skipped; ${flushed} link keys flushed; links made after the dump: ` +
        `served ${lateCounts.served}, stored ${lateCounts.stored}, ` +
        `outcomes ${lateOutcomes}, then ${lateAnswers.filter((s) => s === 404).length}` +
        `/${lateAnswers.length} 404; ${timeline}`,
    );

    expect({ code: early.code, refused: /scale it to 0/.test(early.stderr) }).toEqual({
      code: 1,
      refused: true,
    });
    expect(rewind.stderr).toBe('');
    expect(rewind.code).toBe(0);
    // The overlap between the dump and the rewind's time was read again, and skipped by id.
    expect(BigInt(rewound!.replayed) > 0n).toBe(true);
    expect(duplicates).toBeGreaterThan(0);
    // Redirects never stopped while PostgreSQL was gone and restored: the link cache served
    // them. The flush sends every code to the links service once, as a Redis restart does
    // (scenario 4), with its pool cold after the loss: a loaded machine may answer some 503s
    // for a few seconds, never a wrong answer, and never later.
    expect(unserved.filter(({ at }) => at < flushedAt)).toEqual([]);
    expect(
      unserved.filter(({ at, status }) => status !== 503 || at > flushedAt + FLUSH_GRACE_MS),
    ).toEqual([]);
    expect(result.outcomes.get('wrong-location') ?? 0).toBe(0);
    expect(counts.lost).toBe(0);
    // Stored more than served only for requests the load gave up on (TIMEOUT, 10 s) in the
    // burst after the flush, which the redirect answered after all: each such visit is
    // stored once, and a visit stored twice would show as a duplicate id below.
    expect(counts.doubled).toBeLessThanOrEqual(result.outcomes.get('TIMEOUT') ?? 0);
    expect(storage.duplicateIds).toBe(0);
    expect(storage.statsMismatches).toEqual([]);
    // Links made after the dump: gone from links, their visits stored all the same (not
    // dead-lettered, not dropped), and their codes 404 once the link cache is flushed.
    expect(await codesInLinks(scratch, [...expected.keys()])).toHaveLength(expected.size);
    expect(await codesInLinks(scratch, [...late.keys()])).toEqual([]);
    expect(lateCounts.served).toBeGreaterThan(0);
    // A request the load gave up on (TIMEOUT) may have been answered, and its visit stored.
    expect(lateCounts.lost).toBe(0);
    expect(lateCounts.doubled).toBeLessThanOrEqual(lateResult.outcomes.get('TIMEOUT') ?? 0);
    expect(deadLettered + deadLetteredAfter).toBe(0);
    expect(lateAnswers.every((status) => status === 404)).toBe(true);
  });
});
