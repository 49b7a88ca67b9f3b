import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { Gauge, type Registry } from 'prom-client';
import { opsApi } from '@shortener/contracts';

export interface ReadinessCheck {
  /** What is checked, as it appears in the /readyz body: 'postgres', 'redis', 'kafka'... */
  name: string;
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  check: () => Promise<void>;
  /**
   * Reported, but the service stays ready and degrades without it: one dependency's outage
   * failing readiness everywhere would take every pod out of its Service at once.
   */
  optional?: boolean;
}

export interface ReadinessReport {
  ready: boolean;
  /** 'ok', or why the dependency is not usable. */
  checks: Record<string, string>;
}

/**
 * How long one check may take before it counts as not answering. Half the readiness probe's
 * timeout in our manifests (2 s): a round held by a hanging dependency (a Redis black-holed
 * rather than refused) still answers before the kubelet gives up on the probe, so an optional
 * dependency that hangs cannot fail readiness by time alone.
 */
export const READINESS_CHECK_TIMEOUT_MS = 1000;

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs every check at once; ready only when all answer. A shutting-down service is never ready. */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  shuttingDown = false,
): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async ({ name, check, optional = false }) => {
      try {
        await withTimeout(check(), READINESS_CHECK_TIMEOUT_MS);
        return { name, result: 'ok', blocks: false };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { name, result: optional ? `degraded: ${reason}` : reason, blocks: !optional };
      }
    }),
  );
  const report: Record<string, string> = Object.fromEntries(
    results.map(({ name, result }) => [name, result]),
  );
  if (shuttingDown) report['shutdown'] = 'shutting down';
  return { ready: !shuttingDown && !results.some(({ blocks }) => blocks), checks: report };
}

export interface ThrottledReadiness {
  /** The report of the last round of checks, or of a new round when it is older than maxAgeMs. */
  (shuttingDown?: boolean): Promise<ReadinessReport>;
}

/**
 * checkReadiness for an endpoint anyone may call often: concurrent calls share the round
 * in flight, and a finished round answers for `maxAgeMs`, so a flood of /readyz costs at
 * most one round of backend calls a second. Shutting down is never cached: it shows at once.
 */
export function throttledReadiness(
  checks: readonly ReadinessCheck[],
  {
    maxAgeMs = 1000,
    now = Date.now,
    onReport,
  }: {
    maxAgeMs?: number;
    now?: () => number;
    /** Told of each new round's report (dependencyMetric keeps it for /metrics). */
    onReport?: (report: ReadinessReport) => void;
  } = {},
): ThrottledReadiness {
  let round: Promise<ReadinessReport> | undefined;
  let finishedAt: number | undefined;
  const fresh = (): Promise<ReadinessReport> => {
    if (round && (finishedAt === undefined || now() - finishedAt < maxAgeMs)) return round;
    finishedAt = undefined;
    const current = checkReadiness(checks).finally(() => {
      if (round === current) finishedAt = now();
    });
    if (onReport) void current.then(onReport);
    round = current;
    return current;
  };
  return async (shuttingDown = false) => {
    const report = await fresh();
    if (!shuttingDown) return report;
    return { ready: false, checks: { ...report.checks, shutdown: 'shutting down' } };
  };
}

/** The gauge of each dependency's state at the last readiness check. */
export const DEPENDENCY_METRIC = 'dependency_up';

/** The gauge of the instance's own readiness at its last check (what /readyz answered). */
export const READY_METRIC = 'service_ready';

function gaugeOf<T extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly T[],
): Gauge<T> {
  return (
    (registry.getSingleMetric(name) as Gauge<T> | undefined) ??
    new Gauge({ name, help, labelNames, registers: [registry] })
  );
}

/**
 * Each readiness check's last result as `dependency_up{dependency}` and the verdict as
 * `service_ready`, so an optional dependency away and an unready pod show in alerts without
 * kube-state-metrics; a shutdown is not counted (a stopping pod is unready on purpose).
 */
export function dependencyMetric(registry: Registry): (report: ReadinessReport) => void {
  const dependencies = gaugeOf(
    registry,
    DEPENDENCY_METRIC,
    'Whether a dependency answered at the last readiness check (1) or not (0)',
    ['dependency'] as const,
  );
  const ready = gaugeOf(
    registry,
    READY_METRIC,
    'Whether this instance was ready at its last readiness check (1) or not (0)',
    [] as const,
  );
  return (report) => {
    for (const [dependency, result] of Object.entries(report.checks)) {
      if (dependency !== 'shutdown') dependencies.set({ dependency }, result === 'ok' ? 1 : 0);
    }
    ready.set(report.ready ? 1 : 0);
  };
}

/**
 * Whether another service answers /healthz: reported, never failing readiness (that would spread
 * its outage to every caller). node:http, not fetch, which would load undici for nothing.
 */
export function serviceAlive(name: string, baseUrl: string, timeoutMs = 1500): ReadinessCheck {
  const url = new URL(opsApi.health.path, baseUrl);
  const get = url.protocol === 'https:' ? httpsGet : httpGet;
  return {
    name,
    optional: true,
    check: () =>
      new Promise<void>((resolve, reject) => {
        const request = get(url, { timeout: timeoutMs }, (response) => {
          response.resume();
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`answered ${status}`));
        });
        request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        request.on('error', reject);
      }),
  };
}
