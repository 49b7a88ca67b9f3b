/** The KeyRevocations the process chose (adapters.ts, or the embedded host's). */
export const KEY_REVOCATIONS = Symbol('KEY_REVOCATIONS');
