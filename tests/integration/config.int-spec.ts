import { freePort, startServiceProcess } from '@shortener/testkit';

describe('configuration is validated at start-up', () => {
  it('lists every bad variable in one message and exits without a stack trace', async () => {
    const service = await startServiceProcess(
      'links',
      await freePort(),
      { DATABASE_URL: 'mysql://nowhere', REDIS_URL: 'not a url', LOG_LEVEL: 'loud' },
      { waitForHealth: false },
    );
    expect(await service.exited).toBe(1);
    const output = service.output();
    expect(output).toContain('links: invalid configuration');
    expect(output).toContain('DATABASE_URL: must be a postgres or postgresql URL');
    expect(output).toContain('REDIS_URL: must be a redis or rediss URL');
    expect(output).toContain('LOG_LEVEL:');
    expect(output).not.toContain('    at ');
  });
});

describe('published development secrets', () => {
  it('are refused when NODE_ENV is production (any case), naming each variable and not its value', async () => {
    const service = await startServiceProcess(
      'analytics',
      await freePort(),
      {
        NODE_ENV: 'Prod',
        INTERNAL_API_SECRET: 'dev-only-internal-secret-do-not-use-in-production',
        DATABASE_URL: 'postgres://shortener:dev-only-postgres-password@127.0.0.1:5432/shortener',
      },
      { waitForHealth: false },
    );
    expect(await service.exited).toBe(1);
    const output = service.output();
    expect(output).toContain('analytics: invalid configuration');
    expect(output).toContain('INTERNAL_API_SECRET: holds a published development value');
    expect(output).toContain('DATABASE_URL: holds a published development value');
    expect(output).not.toContain('do-not-use-in-production');
    expect(output).not.toContain('dev-only-postgres-password');
    expect(output).not.toContain('    at ');
  });
});

describe('Kafka authentication settings', () => {
  it('refuse a SASL mechanism without its username and password, listing both', async () => {
    const service = await startServiceProcess(
      'redirect',
      await freePort(),
      { KAFKA_SASL_MECHANISM: 'scram-sha-512', INTERNAL_API_SECRET: 's'.repeat(32) },
      { waitForHealth: false },
    );
    expect(await service.exited).toBe(1);
    const output = service.output();
    expect(output).toContain('redirect: invalid configuration');
    expect(output).toContain('KAFKA_USERNAME: is required when KAFKA_SASL_MECHANISM is set');
    expect(output).toContain('KAFKA_PASSWORD: is required when KAFKA_SASL_MECHANISM is set');
  });
});
