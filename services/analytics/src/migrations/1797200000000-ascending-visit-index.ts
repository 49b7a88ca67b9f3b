import type { MigrationInterface, QueryRunner } from 'typeorm';
import { lockedStep, runnerTransact, type LockStep } from './locked-step';

const INDEX = 'visits_url_created_idx';
/** The index being built beside INDEX until it takes INDEX's place. */
const NEXT = 'visits_url_created_next_idx';

const ASCENDING = '(url_id, created_at, id)';
const DESCENDING = '(url_id, created_at DESC, id DESC)';

/**
 * Rebuilds the visits' index of a link's visits in time (`visits_url_created_idx`) with the
 * key `columns`, while the service reads and writes: a partitioned index made on the parent
 * only, each month's index built CONCURRENTLY and attached (a month made meanwhile gets it
 * when attached), then one short lock to drop the old index and name the new one. Each step
 * is safe to repeat: a run cut short (the migration Job's deadline) resumes at the month it
 * was building.
 */
async function rebuildVisitIndex(
  runner: QueryRunner,
  columns: string,
  suffix: string,
): Promise<LockStep | undefined> {
  const current = (await runner.query(`SELECT pg_get_indexdef(to_regclass($1)) AS definition`, [
    `analytics.${INDEX}`,
  ])) as Array<{ definition: string | null }>;
  if (current[0]?.definition?.endsWith(`USING btree ${columns}`)) return undefined;
  await runner.query(`CREATE INDEX IF NOT EXISTS ${NEXT} ON ONLY analytics.visits ${columns}`);
  for (;;) {
    // The months whose table has no index attached to NEXT yet.
    const missing = (await runner.query(
      `SELECT c.relname AS name
       FROM pg_inherits p JOIN pg_class c ON c.oid = p.inhrelid
       WHERE p.inhparent = 'analytics.visits'::regclass
         AND NOT EXISTS (
           SELECT 1 FROM pg_inherits q JOIN pg_index x ON x.indexrelid = q.inhrelid
           WHERE q.inhparent = $1::regclass AND x.indrelid = c.oid)
       ORDER BY c.relname`,
      [`analytics.${NEXT}`],
    )) as Array<{ name: string }>;
    if (missing.length === 0) break;
    for (const { name } of missing) {
      const index = `${name}_${suffix}`;
      const [built] = (await runner.query(
        `SELECT x.indisvalid AS valid FROM pg_index x WHERE x.indexrelid = to_regclass($1)`,
        [`analytics.${index}`],
      )) as Array<{ valid: boolean }>;
      if (built?.valid !== true) {
        // A build cut short leaves an invalid index: built again from the start.
        if (built) await runner.query(`DROP INDEX CONCURRENTLY analytics.${index}`);
        await runner.query(`CREATE INDEX CONCURRENTLY ${index} ON analytics.${name} ${columns}`);
      }
      await runner.query(`ALTER INDEX analytics.${NEXT} ATTACH PARTITION analytics.${index}`);
    }
  }
  return lockedStep(runnerTransact(runner), 'swap the index', 'ACCESS EXCLUSIVE', async (db) => {
    await db.query(`DROP INDEX IF EXISTS analytics.${INDEX}`);
    await db.query(`ALTER INDEX analytics.${NEXT} RENAME TO ${INDEX}`);
  });
}

/**
 * A link's visits in time indexed ascending, `(url_id, created_at, id)`, not descending:
 * visits arrive in time order, so each insert into the descending index landed at the left
 * edge of its link's range, where page splits leave half-empty pages (for one busy link the
 * index was about twice the size and its inserts half again as slow); the visitor log's
 * newest-first pages read the ascending index backward. No query names the index, so the
 * release before runs on it unchanged (docs/operations/upgrades.md).
 */
export class AscendingVisitIndex1797200000000 implements MigrationInterface {
  name = 'AscendingVisitIndex1797200000000';
  /** CREATE INDEX CONCURRENTLY cannot run in a transaction. */
  transaction = false;

  /** The swap's lock: how long it waited and held (the spec reads it). */
  swap: LockStep | undefined;

  async up(runner: QueryRunner): Promise<void> {
    this.swap = await rebuildVisitIndex(runner, ASCENDING, 'url_created_asc_idx');
  }

  async down(runner: QueryRunner): Promise<void> {
    this.swap = await rebuildVisitIndex(runner, DESCENDING, 'url_created_desc_idx');
  }
}
