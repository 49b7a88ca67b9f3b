import type { Logger } from 'pino';

export interface PeriodicOptions {
  /** Names the job in its log lines. */
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
  logger: Pick<Logger, 'warn'>;
  /** Also run once at start (not awaited), instead of first after `everyMs`. */
  runAtStart?: boolean;
}

export interface PeriodicJob {
  /** Runs now, or joins the run in flight: two runs never overlap. */
  runNow(): Promise<void>;
  /** No run starts after this; resolves once the run in flight, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * A background job run every `everyMs`: a run still going when the next is due is not
 * doubled, a failed run is logged and the job goes on, and the timer does not keep the
 * process alive. The purges and retries of the services run on it.
 */
export function periodic({ name, everyMs, run, logger, runAtStart }: PeriodicOptions): PeriodicJob {
  let running: Promise<void> | undefined;
  let stopped = false;

  const runNow = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) return running;
    const current = (async () => {
      try {
        await run();
      } catch (error) {
        logger.warn({ job: name, err: String(error) }, 'periodic job failed; it runs again later');
      }
    })();
    running = current;
    void current.then(() => {
      if (running === current) running = undefined;
    });
    return current;
  };

  const timer = setInterval(() => void runNow(), everyMs);
  timer.unref();
  if (runAtStart) void runNow();

  return {
    runNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
