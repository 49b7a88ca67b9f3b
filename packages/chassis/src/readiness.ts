export interface ReadinessCheck {
  /** What is checked, as it appears in the /readyz body: 'postgres', 'redis', 'kafka'... */
  name: string;
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  check: () => Promise<void>;
  /**
   * Reported, but the service stays ready without it: it degrades instead of failing (the
   * redirect service without Kafka queues visits and keeps redirecting).
   */
  optional?: boolean;
}

export interface ReadinessReport {
  ready: boolean;
  /** 'ok', or why the dependency is not usable. */
  checks: Record<string, string>;
}

const CHECK_TIMEOUT_MS = 2000;

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
        await withTimeout(check(), CHECK_TIMEOUT_MS);
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
  { maxAgeMs = 1000, now = Date.now }: { maxAgeMs?: number; now?: () => number } = {},
): ThrottledReadiness {
  let round: Promise<ReadinessReport> | undefined;
  let finishedAt: number | undefined;
  const fresh = (): Promise<ReadinessReport> => {
    if (round && (finishedAt === undefined || now() - finishedAt < maxAgeMs)) return round;
    finishedAt = undefined;
    const current = checkReadiness(checks).finally(() => {
      if (round === current) finishedAt = now();
    });
    round = current;
    return current;
  };
  return async (shuttingDown = false) => {
    const report = await fresh();
    if (!shuttingDown) return report;
    return { ready: false, checks: { ...report.checks, shutdown: 'shutting down' } };
  };
}
