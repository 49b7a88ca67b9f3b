import type { DataSource } from 'typeorm';
import { CUSTOM_RANGE } from '@shortener/contracts';
import type { ExportedVisit } from '../stats/visits-csv';
import { AccountFilter } from './account-filter';
import { accountWindow, type AccountStatsRequest } from './account-window';

/** Rows read from the export's cursor at a time. */
const FETCH_ROWS = 1000;

export type AccountExportedVisit = ExportedVisit & { url_id: string };

/**
 * Every visit of the owner's links in the request's range (or period) that its filters match,
 * oldest first, handed to `take` a thousand at a time from one cursor: one snapshot and one
 * ordering for the whole export, never all of it in memory (paging by keyset would sort the
 * account's visits again for each page). Stops when `take` answers false (the caller left).
 */
export async function exportAccountVisits(
  db: DataSource,
  owner: string,
  request: AccountStatsRequest,
  utmColumns: boolean,
  take: (rows: AccountExportedVisit[]) => Promise<boolean>,
  now = Date.now(),
): Promise<void> {
  const window = accountWindow(request, now, null);
  const since = window.range === 'all' ? null : window.from;
  await db.transaction('REPEATABLE READ', async (manager) => {
    const filter =
      (await AccountFilter.of(manager, owner, request, utmColumns, since)) ??
      AccountFilter.everything(owner);
    const params: unknown[] = [];
    let where = filter.scope(params) + filter.sql(params);
    if (since !== null) {
      params.push(new Date(since));
      where += ` AND created_at >= $${params.length}`;
    }
    if (window.range === CUSTOM_RANGE || since !== null) {
      params.push(new Date(window.to));
      where += ` AND created_at <= $${params.length}`;
    }
    const utm = utmColumns
      ? 'utm_source, utm_medium, utm_campaign'
      : 'NULL AS utm_source, NULL AS utm_medium, NULL AS utm_campaign';
    await manager.query(
      `DECLARE account_visits NO SCROLL CURSOR FOR
       SELECT url_id, id, created_at, ip_address, country, platform, browser, device, referrer,
              bot, ${utm}
       FROM analytics.visits WHERE ${where} ORDER BY created_at, id`,
      params,
    );
    for (;;) {
      const rows: AccountExportedVisit[] = await manager.query(
        `FETCH ${FETCH_ROWS} FROM account_visits`,
      );
      if (rows.length === 0 || !(await take(rows)) || rows.length < FETCH_ROWS) break;
    }
  });
}
