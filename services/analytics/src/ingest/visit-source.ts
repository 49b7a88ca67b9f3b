/** Where visit events come from: Kafka, or the embedded mode's in-process bus. */
export interface VisitSource {
  /** The dependency's name in /readyz. */
  readonly name: string;
  /** Resolves while events are being consumed. */
  check(): Promise<void>;
}

export const VISIT_SOURCE = Symbol('VISIT_SOURCE');
