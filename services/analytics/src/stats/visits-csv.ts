/** Cells a spreadsheet would read as a formula (CSV injection): shown as text instead. */
const FORMULA_START = /^[=+\-@]/;
/** Cells RFC 4180 wants quoted: a separator, a quote or a line break inside. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell: a value starting with = + - or @ gets a leading apostrophe (spreadsheets then
 * show it as text, never run it), and a value holding a comma, a quote or a line break is
 * quoted with its quotes doubled (RFC 4180).
 */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV record, CRLF-terminated as RFC 4180 says. */
export function csvLine(values: readonly string[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
