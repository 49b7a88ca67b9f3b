/**
 * Where a spreadsheet could read a formula (CSV injection): at the start of a cell, and
 * wherever it could start one inside a value: after a comma, a semicolon (the list separator
 * in many locales, so `x;=1+1` splits there), a tab or a line break. A formula starts with
 * = + - @ or OWASP's tab and carriage return, spaces before it ignored.
 */
const FORMULA_STARTS = /(?<=^|[,;\t\r\n])(?=[ ]*[=+\-@\t\r])/g;
/** Cells RFC 4180 wants quoted: a separator, a quote or a line break inside. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell: every formula start (see FORMULA_STARTS) gets an apostrophe before it
 * (spreadsheets then show the text, never run it), and a value holding a comma, a quote or a
 * line break is quoted with its quotes doubled (RFC 4180).
 */
export function csvCell(value: string): string {
  const safe = value.replace(FORMULA_STARTS, "'");
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV record, CRLF-terminated as RFC 4180 says. */
export function csvLine(values: readonly string[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
