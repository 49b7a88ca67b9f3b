import type { ReadinessCheck } from './readiness';

/**
 * Something a service talks to (a Redis cache, a Kafka producer, or an in-process stand-in),
 * built by its process and handed to start(), so the service never chooses which kind it got.
 */
export interface Adapter<T> {
  value: T;
  /** What /readyz reports about it. */
  checks: ReadinessCheck[];
  /** Closes it; the service calls this at shutdown, after its own work has drained. */
  close?: () => Promise<void>;
}

/** A service's adapters by name (an interface such as `{ linkCache: Adapter<LinkCache> }`). */
export type Adapters<A> = { readonly [K in keyof A]: Adapter<unknown> };

/** An adapter with nothing to check or close (an in-process object). */
export function inProcess<T>(value: T, checks: ReadinessCheck[] = []): Adapter<T> {
  return { value, checks };
}

/**
 * Every adapter's readiness checks, reported in /readyz and dependency_up but never failing
 * readiness: a service serves without what an adapter reaches for a while (the link cache is
 * only a cache, visits wait for Kafka, rate limits count in memory), and a shared server's
 * outage failing readiness everywhere would take every pod out at once.
 */
export function adapterChecks<A extends Adapters<A>>(adapters: A): ReadinessCheck[] {
  return Object.values<Adapter<unknown>>(adapters).flatMap((adapter) =>
    adapter.checks.map((check) => ({ ...check, optional: true })),
  );
}

/** The shutdown steps that close the given adapters, in order. */
export function closingSteps<A extends Adapters<A>>(
  adapters: A,
): Array<{ name: string; run: () => Promise<void> }> {
  return Object.entries<Adapter<unknown>>(adapters).flatMap(([name, adapter]) =>
    adapter.close ? [{ name: `close ${name}`, run: adapter.close }] : [],
  );
}
