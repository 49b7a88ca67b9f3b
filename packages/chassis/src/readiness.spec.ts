import { checkReadiness } from './readiness';

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
