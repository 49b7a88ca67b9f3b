import { createMetrics } from '@shortener/chassis';
import { createIngestMetrics } from './ingest.metrics';

describe("the consumer's metrics", () => {
  it('has a series at 0 for each step a batch is retried at, before any retry', async () => {
    const metrics = createMetrics('analytics');
    createIngestMetrics(metrics);
    const text = await metrics.registry.metrics();
    for (const step of ['database', 'dead-letter']) {
      expect(text).toContain(`analytics_batch_retries_total{step="${step}",service="analytics"} 0`);
    }
  });
});
