import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { InternalClient } from '@shortener/chassis';
import { internalApi } from '@shortener/contracts';
import {
  freePort,
  startService,
  testServers,
  waitFor,
  type ServiceName,
  type ServiceProcess,
} from '@shortener/testkit';
import { startGroupAtEnd } from './kafka-control';
import type { LoadResult } from './load';

export interface FaultStackOptions {
  services?: ServiceName[];
  /** Extra environment for every service, and per service. */
  env?: NodeJS.ProcessEnv;
  serviceEnv?: Partial<Record<ServiceName, NodeJS.ProcessEnv>>;
}

/**
 * The services of one scenario, each its own process from its built dist on a free port, on
 * the test servers, sharing one internal secret; with its own consumer group starting at the
 * topic's current end, so no other run's visits (nor another scenario's) reach its counts.
 * Unlike a plain test stack, an instance can be killed and started again on its port.
 */
export class FaultStack {
  readonly secret = randomBytes(24).toString('base64url');
  readonly group: string;
  private readonly ports = new Map<ServiceName, number>();
  private readonly instances = new Map<ServiceName, ServiceProcess[]>();
  private readonly started = new Map<
    ServiceProcess,
    { name: ServiceName; env: NodeJS.ProcessEnv }
  >();

  private constructor(
    scenario: string,
    private readonly options: FaultStackOptions,
  ) {
    this.group = `faults-${scenario}-${randomBytes(4).toString('hex')}`;
  }

  static async start(scenario: string, options: FaultStackOptions = {}): Promise<FaultStack> {
    const stack = new FaultStack(scenario, options);
    await startGroupAtEnd(stack.group);
    const names = options.services ?? ['analytics', 'links', 'redirect'];
    for (const name of names) stack.ports.set(name, await freePort());
    try {
      for (const name of names) await stack.add(name);
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  private get common(): NodeJS.ProcessEnv {
    const url = (name: ServiceName): string => `http://127.0.0.1:${this.ports.get(name) ?? 1}`;
    return {
      DATABASE_URL: testServers.databaseUrl,
      REDIS_URL: testServers.redisUrl,
      KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
      INTERNAL_API_SECRET: this.secret,
      AUTH_URL: url('auth'),
      LINKS_URL: url('links'),
      ANALYTICS_URL: url('analytics'),
      REDIRECT_URL: url('redirect'),
      LOG_LEVEL: 'warn',
      KAFKA_CONSUMER_GROUP: this.group,
      ...this.options.env,
    };
  }

  /** Starts one more instance of a service (the first on the port the others know). */
  async add(name: ServiceName, extra: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
    const running = this.all(name);
    const port =
      running.length === 0 ? (this.ports.get(name) ?? (await freePort())) : await freePort();
    const env = { ...this.common, ...this.options.serviceEnv?.[name], ...extra };
    const service = await startService(name, port, env);
    this.instances.set(name, [...running, service]);
    this.started.set(service, { name, env });
    return service;
  }

  /** Kills or stops an instance and starts it again, same port, same environment. */
  async restart(service: ServiceProcess, signal: NodeJS.Signals): Promise<ServiceProcess> {
    const origin = this.started.get(service);
    if (!origin) throw new Error(`${service.name} on ${service.port} is not part of this stack`);
    const { name, env } = origin;
    await service.stop(signal);
    const again = await startService(name, service.port, env);
    this.started.set(again, origin);
    this.instances.set(
      name,
      this.all(name).map((instance) => (instance === service ? again : instance)),
    );
    return again;
  }

  get(name: ServiceName): ServiceProcess {
    const service = this.all(name)[0];
    if (!service) throw new Error(`${name} is not part of this stack`);
    return service;
  }

  all(name: ServiceName): ServiceProcess[] {
    return this.instances.get(name) ?? [];
  }

  /** Signed clients of the internal APIs (analytics: its first instance, now). */
  client(name: 'links' | 'analytics'): InternalClient {
    return new InternalClient(name, this.get(name).url, this.secret);
  }

  /** SIGTERM to every instance; one still running 15 s later (a bug) gets SIGKILL. */
  async stop(): Promise<void> {
    const every = [...this.instances.values()].flat();
    await Promise.all(
      every.map(async (service) => {
        const timer = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
        await service.stop('SIGTERM');
        clearTimeout(timer);
      }),
    );
  }
}

/** Waits until a service says its dependencies (for analytics: its group) are reachable. */
export function ready(service: ServiceProcess, timeoutMs = 45_000): Promise<boolean> {
  return waitFor(async () => (await fetch(`${service.url}/readyz`)).ok, {
    what: `${service.name} on port ${service.port} ready`,
    timeoutMs,
    intervalMs: 200,
  });
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

/** Looks at analytics.visits and link_stats directly, under the API. */
export async function checkStorage(codes: readonly string[]): Promise<StorageCheck> {
  const db = new Client({ connectionString: testServers.databaseUrl });
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
  const text = await (await fetch(`${service.url}/metrics`)).text();
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
