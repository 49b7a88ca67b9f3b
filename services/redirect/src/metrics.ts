import { Counter, Gauge, type Registry } from 'prom-client';

export type RedirectOutcome = 'redirected' | 'not_found' | 'unavailable' | 'too_many_misses';

/** What an operator watches of the redirect service, on its registry. */
export function redirectMetrics(
  registry: Registry,
  sizes: { queueDepth: () => number; localCacheEntries: () => number },
) {
  const registers = [registry];
  new Gauge({
    name: 'visit_queue_depth',
    help: 'Visit events waiting to be published',
    registers,
    collect() {
      this.set(sizes.queueDepth());
    },
  });
  new Gauge({
    name: 'redirect_local_cache_entries',
    help: "Codes held in this instance's memory",
    registers,
    collect() {
      this.set(sizes.localCacheEntries());
    },
  });
  const outcomes = new Counter({
    name: 'redirects_total',
    help: 'Short link requests by outcome',
    labelNames: ['outcome'] as const,
    registers,
  });
  // One child per outcome, made once: a redirect only increments.
  const byOutcome: Record<RedirectOutcome, Counter.Internal> = {
    redirected: outcomes.labels('redirected'),
    not_found: outcomes.labels('not_found'),
    unavailable: outcomes.labels('unavailable'),
    too_many_misses: outcomes.labels('too_many_misses'),
  };
  return {
    outcome: (outcome: RedirectOutcome) => byOutcome[outcome].inc(),
    queue: {
      published: new Counter({
        name: 'visit_events_published_total',
        help: 'Visit events published',
        registers,
      }),
      dropped: new Counter({
        name: 'visit_events_dropped_total',
        help: 'Visit events dropped because the queue was full',
        registers,
      }),
      publishErrors: new Counter({
        name: 'visit_publish_errors_total',
        help: 'Failed attempts to publish a batch of visits',
        registers,
      }),
    },
  };
}
