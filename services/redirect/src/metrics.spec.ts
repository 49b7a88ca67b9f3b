import { Registry } from 'prom-client';
import { redirectMetrics } from './metrics';

describe("the redirect service's metrics", () => {
  it('has a series at 0 for every outcome and every reason a visit is dropped, before any happens', async () => {
    const registry = new Registry();
    redirectMetrics(registry, {
      queueDepth: () => 0,
      queueLimit: 1000,
      localCacheEntries: () => 0,
    });
    const text = await registry.metrics();
    // A first burst of drops must read as an increase from 0: a series that first appears
    // at 500 has no increase() over its window, and VisitsDropped would miss it.
    for (const reason of ['queue_full', 'shutdown']) {
      expect(text).toContain(`visit_events_dropped_total{reason="${reason}"} 0`);
    }
    for (const outcome of [
      'redirected',
      'not_found',
      'unavailable',
      'too_many_misses',
      'password_asked',
      'password_wrong',
      'too_many_tries',
    ]) {
      expect(text).toContain(`redirects_total{outcome="${outcome}"} 0`);
    }
  });

  it('reports VISIT_QUEUE_MAX, which VisitSpoolFilling divides the queue by', async () => {
    const registry = new Registry();
    redirectMetrics(registry, {
      queueDepth: () => 1500,
      queueLimit: 200_000,
      localCacheEntries: () => 0,
    });
    const text = await registry.metrics();
    expect(text).toContain('visit_queue_depth 1500');
    expect(text).toContain('visit_queue_limit 200000');
  });
});
