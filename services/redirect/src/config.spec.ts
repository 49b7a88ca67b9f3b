import { loadRedirectConfig } from './config';

describe('loadRedirectConfig', () => {
  const required = { INTERNAL_API_SECRET: 'a-test-secret-of-enough-length' };

  it('sends at most 1,000 visits to Kafka at a time unless told otherwise', () => {
    // kafkajs encodes a whole send while requests wait: its size is part of the p99.
    expect(loadRedirectConfig(required).VISIT_BATCH_MAX).toBe(1000);
    expect(loadRedirectConfig({ ...required, VISIT_BATCH_MAX: '2000' }).VISIT_BATCH_MAX).toBe(2000);
  });

  it('takes a Unix socket only as an absolute path Linux can bind', () => {
    expect(loadRedirectConfig(required).UNIX_SOCKET).toBeUndefined();
    expect(
      loadRedirectConfig({ ...required, UNIX_SOCKET: '/run/shortener/redirect.sock' }).UNIX_SOCKET,
    ).toBe('/run/shortener/redirect.sock');
    expect(() => loadRedirectConfig({ ...required, UNIX_SOCKET: 'redirect.sock' })).toThrow(
      'UNIX_SOCKET: must be an absolute path',
    );
    expect(() => loadRedirectConfig({ ...required, UNIX_SOCKET: `/${'x'.repeat(107)}` })).toThrow(
      'UNIX_SOCKET: must be at most 107 bytes long',
    );
  });

  it('leaves a stopping instance time to hand off to analytics what Kafka did not take', () => {
    const config = loadRedirectConfig(required);
    expect(config.ANALYTICS_URL).toBe('http://127.0.0.1:7003');
    expect([config.VISIT_DRAIN_TIMEOUT_MS, config.VISIT_HAND_OFF_TIMEOUT_MS]).toEqual([5000, 8000]);
    // Both within the 25 s a shutdown may take, with time to stop before and to close after.
    expect(() =>
      loadRedirectConfig({
        ...required,
        VISIT_DRAIN_TIMEOUT_MS: '15000',
        VISIT_HAND_OFF_TIMEOUT_MS: '8000',
      }),
    ).toThrow(
      'VISIT_DRAIN_TIMEOUT_MS + VISIT_HAND_OFF_TIMEOUT_MS: 23000 ms, more than the 20000 a stopping instance has for them',
    );
  });
});
