/**
 * Drops Node 24's TimeoutNegativeWarning, which kafkajs 2.2.4's negative timers trigger
 * (tulios/kafkajs#1751): three lines of non-JSON stderr nobody can act on. Others pass. The
 * request queue's, printed by every client, no longer comes (request-queue.ts); this stays for
 * the others kafkajs may set in its retries.
 */
const QUIET = 'TimeoutNegativeWarning';
const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;

function nameOf(args: unknown[]): unknown {
  const [warning, options] = args;
  if (warning instanceof Error) return warning.name;
  if (typeof options === 'string') return options;
  return (options as { type?: unknown } | undefined)?.type;
}

process.emitWarning = (...args: unknown[]) => {
  if (nameOf(args) === QUIET) return;
  emitWarning(...args);
};
