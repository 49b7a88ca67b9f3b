import { Backoff, retry, retryForever } from './retry';

const failing = (times: number, value = 'done') => {
  let calls = 0;
  return jest.fn((): Promise<string> => {
    calls += 1;
    return calls <= times ? Promise.reject(new Error(`fail ${calls}`)) : Promise.resolve(value);
  });
};
const noWait = () => jest.fn((_ms: number) => Promise.resolve());

describe('Backoff', () => {
  afterEach(() => jest.restoreAllMocks());

  it('doubles its step up to maxMs, each wait between half the step and all of it', () => {
    jest.spyOn(Math, 'random').mockReturnValue(1);
    const backoff = new Backoff({ initialMs: 100, maxMs: 1000 });
    expect([1, 2, 3, 4, 5, 6].map(() => backoff.next())).toEqual([100, 200, 400, 800, 1000, 1000]);
    jest.spyOn(Math, 'random').mockReturnValue(0);
    expect(backoff.next()).toBe(500);
    backoff.reset();
    expect(backoff.next()).toBe(50);
  });
});

describe('retry', () => {
  afterEach(() => jest.restoreAllMocks());

  it('tries until it succeeds, telling each retry its attempt and wait', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(1);
    const attempt = failing(3);
    const onRetry = jest.fn(
      (_error: unknown, _info: { attempt: number; delayMs: number }) => undefined,
    );
    const wait = noWait();
    await expect(retry(attempt, { initialMs: 10, maxMs: 25, onRetry, wait })).resolves.toBe('done');
    expect(attempt.mock.calls).toEqual([[1], [2], [3], [4]]);
    expect(onRetry.mock.calls.map(([error, info]) => [(error as Error).message, info])).toEqual([
      ['fail 1', { attempt: 1, delayMs: 10 }],
      ['fail 2', { attempt: 2, delayMs: 20 }],
      ['fail 3', { attempt: 3, delayMs: 25 }],
    ]);
    expect(wait.mock.calls.map(([ms]) => ms)).toEqual([10, 20, 25]);
  });

  it('throws the last error once giveUp says so, asked after a failure and after the wait', async () => {
    const attempt = failing(10);
    await expect(
      retry(attempt, { giveUp: (_error, n) => n === 2, wait: noWait() }),
    ).rejects.toThrow('fail 2');
    expect(attempt).toHaveBeenCalledTimes(2);

    // Given up during the wait (a Kafka partition moved away meanwhile): no further attempt.
    let movedAway = false;
    const second = failing(10);
    await expect(
      retry(second, {
        giveUp: () => movedAway,
        wait: () => {
          movedAway = true;
          return Promise.resolve();
        },
      }),
    ).rejects.toThrow('fail 1');
    expect(second).toHaveBeenCalledTimes(1);
  });

  it('stops when the signal aborts, cutting the wait short', async () => {
    const controller = new AbortController();
    const attempt = failing(10);
    const started = Date.now();
    const retrying = retry(attempt, {
      initialMs: 60_000,
      signal: controller.signal,
      onRetry: () => controller.abort(new Error('stopping')),
    });
    await expect(retrying).rejects.toThrow('stopping');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('does not start when the signal has already aborted', async () => {
    const attempt = failing(0);
    await expect(retry(attempt, { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(attempt).not.toHaveBeenCalled();
  });

  it('retryForever reports each failure with its wait, and answers the first success', async () => {
    const onError = jest.fn();
    await expect(retryForever(failing(2), onError, { initialMs: 1, maxMs: 2 })).resolves.toBe(
      'done',
    );
    expect(onError).toHaveBeenCalledTimes(2);
    expect(onError.mock.calls.every(([, delay]) => typeof delay === 'number' && delay <= 2)).toBe(
      true,
    );
  });
});
