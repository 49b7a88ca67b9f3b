import { periodic } from './periodic';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('periodic', () => {
  afterEach(() => jest.useRealTimers());

  it('runs every everyMs, first after one interval', async () => {
    jest.useFakeTimers();
    const run = jest.fn(() => Promise.resolve());
    const job = periodic({ name: 'test', everyMs: 1000, run, logger: { warn: jest.fn() } });
    expect(run).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(2000);
    expect(run).toHaveBeenCalledTimes(3);
    await job.stop();
    await jest.advanceTimersByTimeAsync(5000);
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('runs at once when asked to at start', async () => {
    const run = jest.fn(() => Promise.resolve());
    const job = periodic({
      name: 'test',
      everyMs: 60_000,
      run,
      logger: { warn: jest.fn() },
      runAtStart: true,
    });
    expect(run).toHaveBeenCalledTimes(1);
    await job.stop();
  });

  it('never overlaps runs: a tick or runNow() during a run joins it', async () => {
    jest.useFakeTimers();
    const gate = deferred();
    const run = jest.fn(() => gate.promise);
    const job = periodic({ name: 'test', everyMs: 100, run, logger: { warn: jest.fn() } });
    await jest.advanceTimersByTimeAsync(1000);
    const joined = job.runNow();
    expect(run).toHaveBeenCalledTimes(1);
    gate.resolve();
    await joined;
    await job.runNow();
    expect(run).toHaveBeenCalledTimes(2);
    await job.stop();
  });

  it('logs a failed run, thrown or rejected, and runs again next time', async () => {
    const warn = jest.fn();
    let calls = 0;
    const run = jest.fn(() => {
      calls += 1;
      if (calls === 1) throw new Error('sync boom');
      if (calls === 2) return Promise.reject(new Error('async boom'));
      return Promise.resolve();
    });
    const job = periodic({ name: 'purge', everyMs: 60_000, run, logger: { warn } });
    await job.runNow();
    await flush();
    await job.runNow();
    await flush();
    await job.runNow();
    expect(run).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledWith(
      { job: 'purge', err: 'Error: sync boom' },
      'periodic job failed; it runs again later',
    );
    expect(warn).toHaveBeenCalledWith(
      { job: 'purge', err: 'Error: async boom' },
      'periodic job failed; it runs again later',
    );
    await job.stop();
  });

  it('stop() waits for the run in flight, and no run starts after it', async () => {
    const gate = deferred();
    let ended = false;
    const run = jest.fn(async () => {
      await gate.promise;
      ended = true;
    });
    const job = periodic({ name: 'test', everyMs: 60_000, run, logger: { warn: jest.fn() } });
    void job.runNow();
    const stopping = job.stop();
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(ended).toBe(true);
    await job.runNow();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('does not keep the process alive', async () => {
    const spy = jest.spyOn(global, 'setInterval');
    const job = periodic({
      name: 'test',
      everyMs: 60_000,
      run: () => Promise.resolve(),
      logger: { warn: jest.fn() },
    });
    const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    spy.mockRestore();
    await job.stop();
  });
});
