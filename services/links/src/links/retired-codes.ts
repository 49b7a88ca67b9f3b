/**
 * After a CTE `gone` of removed codes, in the same statement: each into the removal outbox (due
 * at `purgeAfter`) and the retired codes. Answers `gone`'s rows; a code removed again is due again.
 */
export function retireRemoved(purgeAfter: string): string {
  return `, outbox AS (
         INSERT INTO links.removed_links (code, removed_at, purge_after)
         SELECT code, now(), ${purgeAfter} FROM gone
         ON CONFLICT (code) DO UPDATE
           SET removed_at = EXCLUDED.removed_at, purge_after = EXCLUDED.purge_after,
               cache_told = false
         RETURNING code
       ), retired AS (
         INSERT INTO links.retired_codes (code, retired_at)
         SELECT code, now() FROM gone
         ON CONFLICT (code) DO UPDATE SET retired_at = EXCLUDED.retired_at
       )
       SELECT gone.* FROM gone WHERE code IN (SELECT code FROM outbox)`;
}
