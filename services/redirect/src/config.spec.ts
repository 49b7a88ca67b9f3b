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
});
