import type { ReadinessCheck } from '@shortener/chassis';

/** DI tokens the chassis provides to every Nest service. */
export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');
export const SERVICE_LOGGER = Symbol('SERVICE_LOGGER');
export const SERVICE_METRICS = Symbol('SERVICE_METRICS');
export const LIFECYCLE = Symbol('LIFECYCLE');
/** The service's `OpsRoutes` (of @shortener/chassis): what answers /healthz, /readyz, /metrics. */
export const OPS_ROUTES = Symbol('OPS_ROUTES');
/** The service's `ReadinessChecks`: what /readyz runs. */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

/**
 * What /readyz runs: the chassis puts in the service's own checks and its adapters' (see
 * readinessChecks); a module that owns a dependency adds its checks when it is built (the
 * database's, DatabaseModule). Read at each round of checks, once the app has started.
 */
export class ReadinessChecks {
  readonly list: ReadinessCheck[];

  constructor(initial: readonly ReadinessCheck[]) {
    this.list = [...initial];
  }

  add(...checks: ReadinessCheck[]): void {
    this.list.push(...checks);
  }
}

export interface Lifecycle {
  shuttingDown: boolean;
  /**
   * Aborted when the service stops taking requests: what holds a connection open by design
   * (a live event stream) ends then, so the server can close instead of waiting for it.
   */
  readonly stopping: AbortSignal;
}
/** The nonces of internal tokens this instance has taken (`UsedNonces`), one set per service. */
export const USED_NONCES = Symbol('USED_NONCES');
