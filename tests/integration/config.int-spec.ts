import { freePort, startService } from '@shortener/testkit';

describe('configuration is validated at start-up', () => {
  it('lists every bad variable in one message and exits without a stack trace', async () => {
    const service = await startService(
      'links',
      await freePort(),
      { DATABASE_URL: 'mysql://nowhere', REDIS_URL: 'not a url', LOG_LEVEL: 'loud' },
      { waitForHealth: false },
    );
    expect(await service.exited).toBe(1);
    const output = service.output();
    expect(output).toContain('links: invalid configuration');
    expect(output).toContain('DATABASE_URL: must be a postgres or postgresql URL');
    expect(output).toContain('REDIS_URL: must be a redis, rediss or memory URL');
    expect(output).toContain('LOG_LEVEL:');
    expect(output).not.toContain('    at ');
  });
});
