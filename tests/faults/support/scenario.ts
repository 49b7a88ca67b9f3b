import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { InternalClient } from '@shortener/chassis';
import { internalApi } from '@shortener/contracts';
import {
  startStack,
  testServers,
  untilReady,
  type ServiceName,
  type ServiceProcess,
  type Stack,
  type StackOptions,
} from '@shortener/testkit';
import { startGroupAtEnd } from './kafka-control';
import type { LoadResult } from './load';

/**
 * The services of one scenario (analytics, links and redirect unless it says otherwise), a
 * testkit stack with its own consumer group starting at the topic's current end, so no other
 * run's visits (nor another scenario's) reach its counts.
 */
export interface FaultStack extends Stack {
  readonly group: string;
  /** A signed client of an internal API (analytics: its first instance, now). */
  client(name: 'links' | 'analytics'): InternalClient;
}

export const FaultStack = {
  async start(scenario: string, options: StackOptions = {}): Promise<FaultStack> {
    const group = `faults-${scenario}-${randomBytes(4).toString('hex')}`;
    await startGroupAtEnd(group);
    const stack = await startStack({
      services: ['analytics', 'links', 'redirect'],
      ...options,
      env: { KAFKA_CONSUMER_GROUP: group, ...options.env },
    });
    return Object.assign(stack, {
      group,
      client: (name: 'links' | 'analytics') =>
        new InternalClient(name, stack.get(name).url, stack.secret),
    });
  },

  /**
   * A scenario's stack (start) with these instances added, once every instance of every
   * service is ready: what most scenarios start from.
   */
  async startReady(
    scenario: string,
    options: StackOptions = {},
    added: [ServiceName, NodeJS.ProcessEnv?][] = [],
  ): Promise<FaultStack> {
    const stack = await FaultStack.start(scenario, options);
    for (const [name, env] of added) await stack.add(name, env);
    const services = options.services ?? (['analytics', 'links', 'redirect'] as const);
    for (const name of services) for (const service of stack.all(name)) await ready(service);
    return stack;
  },
};

/** Waits until a service says its dependencies (for analytics: its group) are reachable. */
export function ready(service: ServiceProcess, timeoutMs = 45_000): Promise<boolean> {
  return untilReady(service, timeoutMs);
}

/** Fresh links for one scenario: code -> the Location a redirect must answer with. */
export async function createLinks(
  links: InternalClient,
  scenario: string,
  count = 50,
): Promise<Map<string, string>> {
  const run = randomBytes(3).toString('hex');
  const created = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await links.call(internalApi.createLink, {
        identity: { userId: `faults-${scenario}` },
        body: { url: `https://example.com/faults/${scenario}/${run}/${i}`, days: 7 },
      });
      if (response.status !== 201) throw new Error(`link not created: ${response.status}`);
      return response.body;
    }),
  );
  return new Map(created.map((link) => [link.urlID, link.originalUrl]));
}

async function countsOf(analytics: InternalClient, codes: string[]): Promise<Map<string, number>> {
  const response = await analytics.call(internalApi.visitCounts, { body: { codes } });
  return new Map(codes.map((code) => [code, response.body.counts[code] ?? 0]));
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/**
 * The stored visit counts once the pipeline has settled: polled until the total equals what
 * was served and stays so for a moment, or until the deadline (then whatever is stored).
 */
export async function settledCounts(
  stack: FaultStack,
  served: ReadonlyMap<string, number>,
  timeoutMs = 60_000,
): Promise<Map<string, number>> {
  const codes = [...served.keys()];
  const want = sum(served.values());
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let steady = 0;
  let counts = new Map<string, number>();
  while (Date.now() < deadline) {
    try {
      counts = await countsOf(stack.client('analytics'), codes);
    } catch {
      // analytics restarting or its database away: ask again.
      await sleep(500);
      continue;
    }
    const total = sum(counts.values());
    steady = total === last ? steady + 1 : 0;
    last = total;
    // Equal and unchanged over three polls (1.5 s): a late duplicate would show by then.
    if (total >= want && steady >= 2) return counts;
    await sleep(500);
  }
  // Whether the pipeline was still catching up tells a slow machine from a loss.
  process.stdout.write(
    `\nnot settled within ${timeoutMs} ms: stored ${last} of ${want}, ` +
      `${steady > 0 ? `unchanged over the last ${steady + 1} polls` : 'still changing'}\n`,
  );
  return counts;
}

export interface Tally {
  served: number;
  stored: number;
  lost: number;
  doubled: number;
  /** Codes whose stored count differs from what was served. */
  mismatched: string[];
}

export function tally(
  served: ReadonlyMap<string, number>,
  stored: ReadonlyMap<string, number>,
): Tally {
  let lost = 0;
  let doubled = 0;
  const mismatched: string[] = [];
  for (const [code, want] of served) {
    const have = stored.get(code) ?? 0;
    if (have < want) lost += want - have;
    if (have > want) doubled += have - want;
    if (have !== want) mismatched.push(`${code}: served ${want}, stored ${have}`);
  }
  return {
    served: sum(served.values()),
    stored: sum(stored.values()),
    lost,
    doubled,
    mismatched,
  };
}

export interface StorageCheck {
  /** Rows whose id appears more than once: the primary key should make this 0. */
  duplicateIds: number;
  /** Codes whose visit rows differ from their link_stats count. */
  statsMismatches: string[];
  rows: Map<string, number>;
}

/** Looks at analytics.visits and link_stats directly, under the API (in the test database). */
export async function checkStorage(
  codes: readonly string[],
  databaseUrl = testServers.databaseUrl,
): Promise<StorageCheck> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const visits = await db.query<{ url_id: string; rows: number; ids: number }>(
      `SELECT url_id, count(*)::int AS rows, count(DISTINCT id)::int AS ids
       FROM analytics.visits WHERE url_id = ANY($1::varchar[]) GROUP BY url_id`,
      [codes],
    );
    const stats = await db.query<{ url_id: string; visit_count: string }>(
      'SELECT url_id, visit_count FROM analytics.link_stats WHERE url_id = ANY($1::varchar[])',
      [codes],
    );
    const rows = new Map(visits.rows.map((row) => [row.url_id, row.rows]));
    const counted = new Map(stats.rows.map((row) => [row.url_id, Number(row.visit_count)]));
    return {
      duplicateIds: sum(visits.rows.map((row) => row.rows - row.ids)),
      statsMismatches: codes
        .filter((code) => (rows.get(code) ?? 0) !== (counted.get(code) ?? 0))
        .map(
          (code) => `${code}: ${rows.get(code) ?? 0} rows, link_stats ${counted.get(code) ?? 0}`,
        ),
      rows,
    };
  } finally {
    await db.end();
  }
}

/** What a load came to once the pipeline settled (settledCounts): the counts and the tables. */
export interface Settled {
  stored: Map<string, number>;
  counts: Tally;
  storage: StorageCheck;
}

/** settledCounts, their tally against what was served, and the tables under them (checkStorage). */
export async function settle(
  stack: FaultStack,
  served: ReadonlyMap<string, number>,
  timeoutMs: number,
  codes: readonly string[] = [...served.keys()],
): Promise<Settled> {
  const stored = await settledCounts(stack, served, timeoutMs);
  return { stored, counts: tally(served, stored), storage: await checkStorage(codes) };
}

/** Every visit served is stored once: in the counts, and in the tables under them. */
export function expectStoredOnce({ counts, storage }: Pick<Settled, 'counts' | 'storage'>): void {
  expect(counts.mismatched).toEqual([]);
  expect({ lost: counts.lost, doubled: counts.doubled }).toEqual({ lost: 0, doubled: 0 });
  expect(storage.duplicateIds).toBe(0);
  expect(storage.statsMismatches).toEqual([]);
}

/** Share of requests answered 302 with the right Location, in percent. */
export function percent302(load: LoadResult): number {
  return load.sent === 0 ? 0 : (100 * load.servedTotal) / load.sent;
}

/** The line each scenario prints: the figures the issue asks for, plus what explains them. */
export function report(name: string, load: LoadResult, counts: Tally, extra = ''): string {
  const outcomes = [...load.outcomes].map(([outcome, n]) => `${outcome}×${n}`).join(' ');
  const failures = load.failures
    .slice(0, 10)
    .map(
      (f) =>
        `${f.code} at ${((f.at - load.startedAt) / 1000).toFixed(1)} s${f.reused ? ' (reused socket)' : ''}`,
    )
    .join(', ');
  const line =
    `${name}: served ${counts.served}, stored ${counts.stored}, lost ${counts.lost}, ` +
    `doubled ${counts.doubled}, 302s ${percent302(load).toFixed(2)}%` +
    ` (sent ${load.sent}, skipped ${load.skipped}, outcomes ${outcomes}` +
    `${failures ? `; failures ${failures}` : ''}` +
    `${extra ? `; ${extra}` : ''})`;
  // Straight to stdout, not console.log: Jest would wrap it in a stack trace.
  process.stdout.write(`\n${line}\n`);
  return line;
}

/** A Prometheus metric of a service, summed over its label sets (0 if never counted yet). */
export async function metric(service: ServiceProcess, name: string): Promise<number> {
  const text = await (await fetch(`${service.opsUrl}/metrics`)).text();
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
    found = true;
  }
  // A labelled counter shows no sample until it is first counted.
  const family = name.split('{')[0];
  if (!found && !text.includes(`# TYPE ${family} `)) {
    throw new Error(`${service.name} has no metric ${name}`);
  }
  return total;
}

/**
 * Samples a metric every `everyMs` until `until` settles: for gauges that reset on each
 * scrape, such as the event-loop lag, which show whether a service itself stalled.
 */
export async function sampleMetric(
  service: ServiceProcess,
  name: string,
  until: Promise<unknown>,
  everyMs = 1000,
): Promise<{ at: number; value: number }[]> {
  const samples: { at: number; value: number }[] = [];
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    await sleep(everyMs);
    const value = await metric(service, name).catch(() => Number.NaN);
    samples.push({ at: Date.now(), value });
  }
  return samples;
}
