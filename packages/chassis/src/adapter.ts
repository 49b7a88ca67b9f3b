import type { ReadinessCheck } from './readiness';

/**
 * Something a service talks to beyond its own code: a Redis-backed cache, a Kafka producer,
 * or their in-process stand-ins. A process chooses and builds its adapters in one place (a
 * service's main.ts from its configuration, or the embedded host), then hands them to the
 * service's start(): the service never decides which kind it got.
 */
export interface Adapter<T> {
  value: T;
  /** What /readyz reports about it. */
  checks: ReadinessCheck[];
  /** Closes it; the service calls this at shutdown, after its own work has drained. */
  close?: () => Promise<void>;
}

/** An adapter with nothing to check or close (an in-process object). */
export function inProcess<T>(value: T, checks: ReadinessCheck[] = []): Adapter<T> {
  return { value, checks };
}

/** The shutdown steps that close the given adapters, in order. */
export function closingSteps(
  adapters: Record<string, Adapter<unknown>>,
): Array<{ name: string; run: () => Promise<void> }> {
  return Object.entries(adapters).flatMap(([name, adapter]) =>
    adapter.close ? [{ name: `close ${name}`, run: adapter.close }] : [],
  );
}
