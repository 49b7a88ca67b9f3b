// The one place that decides how infra talks to a human, so lines stay aligned and
// `quiet` callers (the test runner) see nothing but errors they throw themselves.

/**
 * @param {{ quiet?: boolean, log?: (line: string) => void }} [options]
 */
export function reporter({ quiet = false, log = (line) => console.log(line) } = {}) {
  const emit = quiet ? () => {} : log;
  return {
    /** `Kafka       127.0.0.1:9092                  ready (started, pid 1234, 2.7 s)` */
    line(name, address, text) {
      // A longer address (a database with a long name) still keeps a space before the text.
      emit(`${name.padEnd(12)}${`${String(address)} `.padEnd(30)}${text}`);
    },
    note(text) {
      emit(`  ${text}`);
    },
    text(line) {
      emit(line);
    },
  };
}

export function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}
