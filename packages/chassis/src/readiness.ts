export interface ReadinessCheck {
  /** What is checked, as it appears in the /readyz body: 'postgres', 'redis', 'kafka'... */
  name: string;
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  check: () => Promise<void>;
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
    checks.map(async ({ name, check }) => {
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS);
        return [name, 'ok'] as const;
      } catch (error) {
        return [name, error instanceof Error ? error.message : String(error)] as const;
      }
    }),
  );
  const report: Record<string, string> = Object.fromEntries(results);
  if (shuttingDown) report['shutdown'] = 'shutting down';
  return { ready: Object.values(report).every((value) => value === 'ok'), checks: report };
}
