import type { PeriodicOptions } from '@shortener/chassis';
import { PeriodicProvider } from './periodic-provider';

class Counter extends PeriodicProvider {
  runs = 0;
  finished = 0;

  constructor(private readonly runMs: number) {
    super();
  }

  protected periodicJob(): PeriodicOptions {
    return {
      name: 'counter',
      everyMs: 10,
      run: async () => {
        this.runs += 1;
        await new Promise((resolve) => setTimeout(resolve, this.runMs));
        this.finished += 1;
      },
      logger: { warn: () => undefined },
    };
  }
}

describe('PeriodicProvider', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs nothing before the application has started', async () => {
    const counter = new Counter(0);
    await jest.advanceTimersByTimeAsync(50);
    expect(counter.runs).toBe(0);
  });

  it('runs its job once started, and no more once shut down', async () => {
    const counter = new Counter(0);
    counter.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(80);
    expect(counter.runs).toBeGreaterThan(1);
    // The run started on the last tick ends on a timer of its own.
    await Promise.all([counter.onApplicationShutdown(), jest.runOnlyPendingTimersAsync()]);
    const after = counter.runs;
    await jest.advanceTimersByTimeAsync(50);
    expect(counter.runs).toBe(after);
  });

  it('shuts down only once the run in flight has ended', async () => {
    const counter = new Counter(100);
    counter.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(30);
    expect(counter.runs).toBe(1);
    expect(counter.finished).toBe(0);
    let shutDown = false;
    const shutdown = counter.onApplicationShutdown().then(() => (shutDown = true));
    await jest.advanceTimersByTimeAsync(50);
    expect(shutDown).toBe(false);
    await jest.advanceTimersByTimeAsync(50);
    await shutdown;
    expect(counter.finished).toBe(1);
  });

  it('shuts down at once when it never started', async () => {
    await expect(new Counter(0).onApplicationShutdown()).resolves.toBeUndefined();
  });
});
