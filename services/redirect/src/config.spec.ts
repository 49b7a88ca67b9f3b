import { loadRedirectConfig } from './config';

describe('loadRedirectConfig', () => {
  const required = { INTERNAL_API_SECRET: 'a-test-secret-of-enough-length' };

  it('sends at most 1,000 visits to Kafka at a time unless told otherwise', () => {
    // kafkajs encodes a whole send while requests wait: its size is part of the p99.
    expect(loadRedirectConfig(required).VISIT_BATCH_MAX).toBe(1000);
    expect(loadRedirectConfig({ ...required, VISIT_BATCH_MAX: '2000' }).VISIT_BATCH_MAX).toBe(2000);
  });
});
