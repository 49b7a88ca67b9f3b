import { checkReadiness, throttledReadiness } from './readiness';

const ok = () => Promise.resolve();
const down = () => Promise.reject(new Error('connection refused'));

describe('checkReadiness', () => {
  it('is ready when every check answers', async () => {
    expect(await checkReadiness([{ name: 'postgres', check: ok }])).toEqual({
      ready: true,
      checks: { postgres: 'ok' },
    });
  });

  it('is not ready when a required dependency fails, and says why', async () => {
    expect(
      await checkReadiness([
        { name: 'postgres', check: down },
        { name: 'redis', check: ok },
      ]),
    ).toEqual({
      ready: false,
      checks: { postgres: 'connection refused', redis: 'ok' },
    });
  });

  it('stays ready without an optional dependency, reporting it degraded', async () => {
    expect(await checkReadiness([{ name: 'kafka', check: down, optional: true }])).toEqual({
      ready: true,
      checks: { kafka: 'degraded: connection refused' },
    });
  });

  it('is never ready while shutting down', async () => {
    expect((await checkReadiness([{ name: 'x', check: ok }], true)).ready).toBe(false);
  });
});

describe('throttledReadiness', () => {
  it('shares one round of checks between concurrent calls', async () => {
    let calls = 0;
    let answer = (): void => undefined;
    const check = () => {
      calls += 1;
      return new Promise<void>((resolve) => (answer = resolve));
    };
    const readiness = throttledReadiness([{ name: 'links', check }]);
    const reports = Array.from({ length: 50 }, () => readiness());
    answer();
    expect(await Promise.all(reports)).toEqual(
      Array.from({ length: 50 }, () => ({ ready: true, checks: { links: 'ok' } })),
    );
    expect(calls).toBe(1);
  });

  it('answers from the last round for maxAgeMs after it ends, then checks again', async () => {
    let now = 1_000;
    let calls = 0;
    const check = () => {
      calls += 1;
      return Promise.resolve();
    };
    const readiness = throttledReadiness([{ name: 'links', check }], {
      maxAgeMs: 1000,
      now: () => now,
    });
    await readiness();
    now += 999;
    await readiness();
    expect(calls).toBe(1);
    now += 1;
    await readiness();
    expect(calls).toBe(2);
  });

  it('reports shutting down at once, from a cached round too', async () => {
    const readiness = throttledReadiness([{ name: 'x', check: ok }]);
    expect(await readiness()).toEqual({ ready: true, checks: { x: 'ok' } });
    expect(await readiness(true)).toEqual({
      ready: false,
      checks: { x: 'ok', shutdown: 'shutting down' },
    });
  });
});
