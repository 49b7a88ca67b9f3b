import type { Logger } from 'pino';

export interface ShutdownOptions {
  logger: Logger;
  /** Steps run in order on SIGTERM or SIGINT: stop taking work, drain, flush, disconnect. */
  steps: ReadonlyArray<{ name: string; run: () => Promise<void> }>;
  /** Past this the process exits anyway, so a stuck dependency cannot block a rollout. */
  timeoutMs?: number;
  exit?: (code: number) => void;
  /**
   * Whether this service answers SIGTERM/SIGINT itself. Off when several services share one
   * process (the embedded mode), whose host calls each returned shutdown in turn.
   */
  handleSignals?: boolean;
}

type Step = { name: string; run: () => Promise<void> };

/**
 * How long a stopping process may take (its drain): past it, it exits anyway. Below
 * Kubernetes' 30 s grace period, so the pod exits on its own rather than by SIGKILL.
 */
export const SHUTDOWN_TIMEOUT_MS = 25_000;

const exitSteps: Step[] = [];

/**
 * A step a process runs last, after its service's own steps and before it exits: flushing
 * what it holds for others (the traces not exported yet). Run by a service that answers the
 * signals itself (a hosted one's host runs its own).
 */
export function atExit(step: Step): void {
  exitSteps.push(step);
}

/** Installs the signal handlers once; returns a function that starts the same shutdown. */
export function onShutdown({
  logger,
  steps,
  timeoutMs = SHUTDOWN_TIMEOUT_MS,
  exit = (code) => process.exit(code),
  handleSignals = true,
}: ShutdownOptions): (reason: string) => Promise<void> {
  let started: Promise<void> | undefined;
  const shutdown = (reason: string): Promise<void> => {
    started ??= (async () => {
      logger.info({ reason }, 'shutting down');
      const timer = setTimeout(() => {
        logger.error({ timeoutMs }, 'shutdown took too long, exiting');
        exit(1);
      }, timeoutMs);
      timer.unref();
      let code = 0;
      for (const step of handleSignals ? [...steps, ...exitSteps] : steps) {
        try {
          await step.run();
        } catch (error) {
          code = 1;
          logger.error({ err: error, step: step.name }, 'shutdown step failed');
        }
      }
      clearTimeout(timer);
      logger.info('stopped');
      logger.flush();
      exit(code);
    })();
    return started;
  };
  if (handleSignals) {
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
  }
  return shutdown;
}
