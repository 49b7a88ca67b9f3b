import { collectDefaultMetrics, type Counter, Histogram, Registry } from 'prom-client';

export interface ServiceMetrics {
  registry: Registry;
  httpRequests: Histogram<'method' | 'route' | 'status'>;
}

/** A registry per service with process metrics and one HTTP histogram, labelled by route. */
export function createMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests served, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return { registry, httpRequests };
}

/**
 * Gives `counter` a series at 0 for each of `values` of its one label, so that the first
 * increase of each is seen as one: a series that first appears at its first increment has no
 * increase() in its window, and an alert on it misses a first burst.
 */
export function startAtZero<T extends string>(
  counter: Counter<T>,
  label: T,
  values: readonly string[],
): void {
  for (const value of values) counter.inc({ [label]: value } as Partial<Record<T, string>>, 0);
}
