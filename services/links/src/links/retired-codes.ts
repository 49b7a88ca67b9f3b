/**
 * After a CTE `gone` of removed codes: each goes into the removal outbox, due for its purge at
 * `purgeAfter` (an SQL expression: a deleted link's undo window, or now), and among the
 * retired codes (kept from reuse), in the same statement as the removal. Answers the rows of
 * `gone` (the codes, and whatever else it returns).
 * A code removed again (deleted after an undo) is due again, and its cache told again.
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
