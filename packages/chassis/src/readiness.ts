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
