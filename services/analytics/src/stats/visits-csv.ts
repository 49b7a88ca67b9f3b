import { once } from 'node:events';
import type { Response } from 'express';

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

/** What an export reads of a visit. */
export interface ExportedVisit {
  id: string;
  created_at: Date;
  ip_address: string;
  country: string;
  platform: string;
  browser: string;
  device: string;
  referrer: string | null;
  bot: boolean;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
}

/** A visit's cells, in VISITS_CSV_COLUMNS' order. */
export function visitCells(row: ExportedVisit): string[] {
  return [
    row.created_at.toISOString(),
    row.ip_address,
    row.country,
    row.platform,
    row.browser,
    row.device,
    row.referrer ?? '',
    String(row.bot),
    row.utm_source ?? '',
    row.utm_medium ?? '',
    row.utm_campaign ?? '',
  ];
}

/**
 * Answers a CSV export: its header line, then what `produce` sends (records, a chunk at a
 * time, each waiting for the connection to take the one before). `send` answers false once
 * the caller has gone, for `produce` to stop reading. A failure after the header cuts the
 * connection, so the download fails instead of looking whole.
 */
export async function streamCsv(
  res: Response,
  columns: readonly string[],
  produce: (send: (records: string) => Promise<boolean>) => Promise<void>,
): Promise<void> {
  res.status(200);
  res.setHeader('content-type', 'text/csv; charset=utf-8');
  let gone = false;
  res.on('close', () => (gone = true));
  const send = async (records: string): Promise<boolean> => {
    if (records !== '' && !res.write(records)) await once(res, 'drain');
    return !gone;
  };
  try {
    await send(csvLine(columns));
    await produce(send);
  } catch (error) {
    res.destroy(error instanceof Error ? error : new Error(String(error)));
    return;
  }
  res.end();
}
