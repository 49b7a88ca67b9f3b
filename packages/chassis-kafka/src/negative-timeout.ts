/**
 * kafkajs 2.2.4 (its last release) asks for a negative timer (tulios/kafkajs#1751). Node runs
 * such a timer after 1 ms, as it always has, and since Node 24 also prints a three-line
 * TimeoutNegativeWarning on stderr, once a process: not a JSON log line, and nothing anyone can
 * act on. Every process with a Kafka client loads this package (the services, the operator
 * commands, the embedded mode with KAFKA_BROKERS), so this one warning is dropped here; every
 * other warning is emitted as before. The services' images also start Node with
 * `--disable-warning=TimeoutNegativeWarning` (their node.env), which does the same.
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
