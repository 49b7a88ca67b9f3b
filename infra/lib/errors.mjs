// Failures the user can act on. The CLI prints `message` as one line (plus `details`,
// e.g. the tail of a log) and never a stack trace; anything else is a bug in infra.
export class InfraError extends Error {
  /**
   * @param {string} message one line: what is wrong and what to do
   * @param {{ details?: string[], cause?: unknown }} [extra]
   */
  constructor(message, { details = [], cause } = {}) {
    super(message, { cause });
    this.name = 'InfraError';
    this.details = details;
  }
}

/** A short reason from any error, for embedding in an InfraError message. */
export function reason(error) {
  if (error instanceof AggregateError && error.errors?.length) return reason(error.errors[0]);
  const text = error?.message || error?.code || String(error);
  return text.split('\n')[0].trim();
}
