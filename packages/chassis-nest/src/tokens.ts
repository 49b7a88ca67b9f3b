/** DI tokens the chassis provides to every Nest service. */
export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');
export const SERVICE_LOGGER = Symbol('SERVICE_LOGGER');
export const SERVICE_METRICS = Symbol('SERVICE_METRICS');
export const LIFECYCLE = Symbol('LIFECYCLE');
/** A service provides its readiness checks under this token: `ReadinessCheck[]`. */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

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
