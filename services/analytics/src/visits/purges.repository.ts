import { Inject, Injectable } from '@nestjs/common';
import { isShortCode } from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { boundIdleTransaction, connected } from './analytics-database';
import { lockLinks } from './link-locks';
import { takeOffAccounts } from './link-owners.repository';
import { monthTables } from './visit-partitions';

/** PostgreSQL's SQLSTATE for a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

/** What is counted of a link beside its visits, deleted with it. */
const LINK_TABLES = [
  'link_stats',
  'visit_hours',
  'visit_breakdowns',
  'visit_breakdown_hours',
  'visitor_days',
];

/** Rows deleted per statement when a link's visits go, so no transaction runs for long. */
export const DELETE_SLICE = 10_000;

/**
 * A slice of the links' visits ($1) in one month's table deleted, at most $2, with their
 * event ids; answers how many. The slice's rows are deleted by their place in the table (a
 * TID scan, whatever PostgreSQL believes of the table's size). Joined back by key instead, a
 * month whose statistics were taken over dead rows (before autovacuum's next ANALYZE; always
 * in a database without autovacuum) had each of its rows compared with every row of the slice:
 * 400 million comparisons, 25 s, for a slice of 10,000 of a link's 30,000 visits.
 */
export function deleteLinkVisitsFrom(table: string): string {
  return `
    WITH gone AS (
      DELETE FROM analytics.${table} WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM analytics.${table} WHERE url_id = ANY($1::varchar[]) LIMIT $2
      ))
      RETURNING id
    ),
    ids AS (DELETE FROM analytics.visit_ids WHERE id IN (SELECT id FROM gone))
    SELECT count(*)::int AS removed FROM gone`;
}

/** What leaves the analytics schema: deleted links' visits and counts, and what expires. */
@Injectable()
export class PurgesRepository {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  /**
   * Forgets links: tombstones first (with their counts, under the exclusive link locks, so a
   * batch storing visits of them has either committed already or will see the tombstone),
   * then their visits in slices, with their event ids (as a plain table's row took its key
   * with it). Safe to repeat; returns how many visits were removed.
   */
  async deleteLinks(codes: readonly string[]): Promise<number> {
    const links = [...new Set(codes.filter(isShortCode))];
    if (links.length === 0) return 0;
    const db = connected(this.database);
    await db.transaction(async (manager) => {
      await boundIdleTransaction(manager);
      await lockLinks(manager, links, 'exclusive');
      await manager.query(
        `INSERT INTO analytics.deleted_links (url_id, deleted_at)
         SELECT unnest($1::varchar[]), now()
         ON CONFLICT (url_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at`,
        [links],
      );
      await takeOffAccounts(manager, links);
      for (const table of LINK_TABLES) {
        await manager.query(`DELETE FROM analytics.${table} WHERE url_id = ANY($1::varchar[])`, [
          links,
        ]);
      }
    });
    let deleted = 0;
    for (const { name, attached } of await monthTables(db)) {
      if (!attached) continue;
      for (;;) {
        let removed: number;
        try {
          const [row]: { removed: number }[] = await db.query(deleteLinkVisitsFrom(name), [
            links,
            DELETE_SLICE,
          ]);
          removed = row?.removed ?? 0;
        } catch (error) {
          // The month was dropped meanwhile (its retention ended): nothing of it is left.
          const driver = (error as { driverError?: unknown }).driverError ?? error;
          if ((driver as { code?: unknown }).code === UNDEFINED_TABLE) break;
          throw error;
        }
        deleted += removed;
        if (removed < DELETE_SLICE) break;
      }
    }
    return deleted;
  }

  /** Tombstones older than the retention go; returns how many. */
  async purgeTombstones(retentionDays: number): Promise<number> {
    const [row]: { purged: number }[] = await connected(this.database).query(
      `WITH gone AS (
         DELETE FROM analytics.deleted_links
         WHERE deleted_at < now() - make_interval(days => $1)
         RETURNING 1
       )
       SELECT count(*)::int AS purged FROM gone`,
      [retentionDays],
    );
    return row?.purged ?? 0;
  }

  /**
   * What is only kept for a while goes: hourly breakdowns older than two days (the 24-hour
   * range needs one), visitor keys a week after their day. Returns how many rows of each.
   */
  async purgeShortLived(keyRetentionDays: number): Promise<{ hours: number; keys: number }> {
    const [hours]: { purged: number }[] = await connected(this.database).query(
      `WITH gone AS (
         DELETE FROM analytics.visit_breakdown_hours WHERE hour < now() - interval '2 days'
         RETURNING 1
       ),
       account AS (
         DELETE FROM analytics.account_breakdown_hours WHERE hour < now() - interval '2 days'
       )
       SELECT count(*)::int AS purged FROM gone`,
    );
    const [keys]: { purged: number }[] = await connected(this.database).query(
      `WITH gone AS (
         DELETE FROM analytics.visitor_keys
         WHERE day < (now() AT TIME ZONE 'UTC')::date - $1::int
         RETURNING 1
       )
       SELECT count(*)::int AS purged FROM gone`,
      [keyRetentionDays],
    );
    return { hours: hours?.purged ?? 0, keys: keys?.purged ?? 0 };
  }
}
