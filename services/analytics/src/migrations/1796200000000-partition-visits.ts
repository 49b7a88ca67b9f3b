import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  MONTHS_AHEAD,
  addMonths,
  createMonth,
  monthOf,
  type Queryable,
  type Transact,
} from '../visits/visit-partitions';
import { lockedStep, runnerTransact, sqlState, type LockStep } from './locked-step';

/** Visits copied per statement, each statement its own short transaction. */
const COPY_SLICE = 10_000;

/**
 * PARTITION_COPY_SECONDS: how long one run copies before it stops (the copy resumes where it
 * stopped on the next run); unset, until done. The migration Job sets it under its deadline.
 */
export function copyBudgetMs(source: NodeJS.ProcessEnv = process.env): number {
  const raw = source['PARTITION_COPY_SECONDS'];
  if (raw === undefined || raw.trim() === '') return Infinity;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new Error(`PARTITION_COPY_SECONDS must be a positive number of seconds, not "${raw}"`);
  }
  return seconds * 1000;
}

const COLUMNS =
  'id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country';

/**
 * How many times in a row a slice is copied again after PostgreSQL broke a deadlock by
 * aborting it: a delete of the serving release that takes a slice's rows in another order
 * than the copy's (by event id) can deadlock with it, and either side may be the one aborted.
 */
const SLICE_DEADLOCK_TRIES = 20;

/**
 * `analytics.visits` partitioned by UTC month of `created_at` while the service serves, in
 * steps each safe to repeat (docs/operations/storage.md): `visit_ids`, a mirroring trigger,
 * a copy in resumable slices, then a short swap.
 */
export class PartitionVisits1796200000000 implements MigrationInterface {
  name = 'PartitionVisits1796200000000';
  transaction = false;

  /** Each locking step's waits and holds, for the bench (bench/visits-partitioning.mjs). */
  readonly locks: LockStep[] = [];

  constructor(
    private readonly copySlice = COPY_SLICE,
    private readonly copyBudget = copyBudgetMs(),
  ) {}

  async up(runner: QueryRunner): Promise<void> {
    const transact = runnerTransact(runner);
    const [layout] = (await runner.query(
      "SELECT relkind = 'p' AS partitioned FROM pg_class WHERE oid = 'analytics.visits'::regclass",
    )) as Array<{ partitioned: boolean }>;
    if (!layout?.partitioned) await this.partition(runner, transact);
    await runner.query('DROP TABLE IF EXISTS analytics.visits_unpartitioned');
    await runner.query('DROP FUNCTION IF EXISTS analytics.visits_mirror()');
    await runner.query('DROP TABLE IF EXISTS analytics.visits_copy_progress');
  }

  async down(): Promise<void> {
    // Back to one table would be this migration the other way round, for no gain: an older
    // release reads the partitioned table as it read the plain one.
  }

  private async partition(runner: QueryRunner, transact: Transact): Promise<void> {
    const [started] = (await runner.query(
      "SELECT to_regclass('analytics.visits_partitioned') IS NOT NULL AS started",
    )) as Array<{ started: boolean }>;
    // Progress counts only into the partitioned table it was made with.
    if (!started?.started)
      await runner.query('DROP TABLE IF EXISTS analytics.visits_copy_progress');
    await runner.query(`
      CREATE TABLE IF NOT EXISTS analytics.visits_copy_progress (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        after uuid NOT NULL,
        copied bigint NOT NULL
      )`);
    await runner.query('CREATE TABLE IF NOT EXISTS analytics.visit_ids (id uuid PRIMARY KEY)');
    await runner.query(`
      CREATE TABLE IF NOT EXISTS analytics.visits_partitioned (
        id uuid NOT NULL,
        url_id varchar(50) NOT NULL,
        created_at timestamptz NOT NULL,
        ip_address varchar(64) NOT NULL,
        platform text NOT NULL,
        browser text NOT NULL,
        referrer text,
        bot boolean NOT NULL DEFAULT false,
        device text NOT NULL DEFAULT 'other',
        country char(2) NOT NULL DEFAULT 'ZZ',
        CONSTRAINT visits_partitioned_pkey PRIMARY KEY (id, created_at)
      ) PARTITION BY RANGE (created_at)`);
    await runner.query(`
      CREATE INDEX IF NOT EXISTS visits_partitioned_url_created_idx
      ON analytics.visits_partitioned (url_id, created_at DESC, id DESC)`);

    // Every month with visits (one pass over the table, reading only), and those ahead.
    const months = (await runner.query(
      "SELECT DISTINCT date_trunc('month', created_at, 'UTC') AS month FROM analytics.visits",
    )) as Array<{ month: Date }>;
    const current = monthOf(new Date());
    const wanted = new Map<number, Date>();
    for (const { month } of months) wanted.set(month.getTime(), monthOf(month));
    for (let ahead = 0; ahead <= MONTHS_AHEAD; ahead += 1) {
      const month = addMonths(current, ahead);
      wanted.set(month.getTime(), month);
    }
    for (const month of wanted.values()) await createMonth(transact, month, 'visits_partitioned');

    await runner.query(`
      CREATE OR REPLACE FUNCTION analytics.visits_mirror() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO analytics.visit_ids (id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
          INSERT INTO analytics.visits_partitioned (${COLUMNS})
          VALUES (NEW.id, NEW.url_id, NEW.created_at, NEW.ip_address, NEW.platform, NEW.browser,
                  NEW.referrer, NEW.bot, NEW.device, NEW.country)
          ON CONFLICT DO NOTHING;
        ELSE
          DELETE FROM analytics.visits_partitioned
          WHERE id = OLD.id AND created_at = OLD.created_at;
        END IF;
        RETURN NULL;
      END $$`);
    await this.locked(transact, 'mirror trigger', 'SHARE ROW EXCLUSIVE', async (db) => {
      await db.query(`
        CREATE OR REPLACE TRIGGER visits_mirror AFTER INSERT OR DELETE ON analytics.visits
        FOR EACH ROW EXECUTE FUNCTION analytics.visits_mirror()`);
    });

    await this.copy(runner);
    await runner.query('ANALYZE analytics.visits_partitioned');

    await this.locked(transact, 'swap', 'ACCESS EXCLUSIVE', async (db) => {
      await db.query('DROP TRIGGER visits_mirror ON analytics.visits');
      await db.query('ALTER TABLE analytics.visits RENAME TO visits_unpartitioned');
      await db.query('ALTER INDEX analytics.visits_pkey RENAME TO visits_unpartitioned_pkey');
      await db.query(
        'ALTER INDEX analytics.visits_url_created_idx RENAME TO visits_unpartitioned_url_created_idx',
      );
      await db.query('ALTER TABLE analytics.visits_partitioned RENAME TO visits');
      await db.query('ALTER INDEX analytics.visits_partitioned_pkey RENAME TO visits_pkey');
      await db.query(
        'ALTER INDEX analytics.visits_partitioned_url_created_idx RENAME TO visits_url_created_idx',
      );
    });
  }

  /**
   * Step 4: copies the rows from where the last run got to, a slice a statement, until done
   * or until the run's budget is spent (then fails, saying how far it got and what is left).
   */
  private async copy(runner: QueryRunner): Promise<void> {
    const began = performance.now();
    const [progress] = (await runner.query(
      'SELECT after, copied FROM analytics.visits_copy_progress',
    )) as Array<{ after: string; copied: string }>;
    let after = progress?.after ?? '00000000-0000-0000-0000-000000000000';
    let copied = Number(progress?.copied ?? 0);
    let thisRun = 0;
    for (let deadlocks = 0; ;) {
      let result: Array<{ last: string | null; rows: number }>;
      try {
        result = (await runner.query(
          `WITH slice AS (
           SELECT ${COLUMNS} FROM analytics.visits WHERE id > $1 ORDER BY id LIMIT $2 FOR SHARE
         ),
         ids AS (
           INSERT INTO analytics.visit_ids (id) SELECT id FROM slice ON CONFLICT DO NOTHING
         ),
         copied AS (
           INSERT INTO analytics.visits_partitioned (${COLUMNS}) SELECT * FROM slice
           ON CONFLICT DO NOTHING
         ),
         progress AS (
           INSERT INTO analytics.visits_copy_progress AS p (after, copied)
           SELECT last, rows FROM (
             SELECT (SELECT id FROM slice ORDER BY id DESC LIMIT 1) AS last,
                    (SELECT count(*) FROM slice) AS rows
           ) AS s
           WHERE rows > 0
           ON CONFLICT (one) DO UPDATE
             SET after = EXCLUDED.after, copied = p.copied + EXCLUDED.copied
         )
         SELECT (SELECT id FROM slice ORDER BY id DESC LIMIT 1) AS last,
                (SELECT count(*)::int FROM slice) AS rows`,
          [after, this.copySlice],
        )) as Array<{ last: string | null; rows: number }>;
      } catch (error) {
        // One statement, so all of the slice or none of it: copy it again.
        if (sqlState(error) !== '40P01' || ++deadlocks >= SLICE_DEADLOCK_TRIES) throw error;
        continue;
      }
      deadlocks = 0;
      const [slice] = result;
      copied += slice?.rows ?? 0;
      thisRun += slice?.rows ?? 0;
      if (!slice?.last || slice.rows < this.copySlice) return;
      after = slice.last;
      const spent = performance.now() - began;
      if (spent >= this.copyBudget) {
        const [estimate] = (await runner.query(
          "SELECT reltuples::bigint AS rows FROM pg_class WHERE oid = 'analytics.visits'::regclass",
        )) as Array<{ rows: string }>;
        const rate = Math.round(thisRun / (spent / 1000));
        // reltuples is -1 until the table was first analyzed.
        const total = Number(estimate?.rows ?? -1);
        const left = Math.max(0, total - copied);
        const rest =
          total < 0
            ? 'the rest unknown until the table is analyzed'
            : `about ${left} left, about ${Math.ceil(left / Math.max(rate, 1))} s more at this rate`;
        throw new Error(
          `analytics.visits partitioning: copied ${thisRun} visits in ${Math.round(spent / 1000)} s ` +
            `(${rate}/s; ${copied} so far, ${rest}) and stopped at PARTITION_COPY_SECONDS: run ` +
            `the analytics migration without it (k8s/operations/partition-visits.yaml, no ` +
            `deadline; it resumes here) until it finishes, then the migration Job again`,
        );
      }
    }
  }

  /** Runs a step under a lock on the old table, recording how long it waited and held. */
  private async locked(
    transact: Transact,
    step: string,
    mode: string,
    work: (db: Queryable) => Promise<void>,
  ): Promise<void> {
    this.locks.push(await lockedStep(transact, step, mode, work));
  }
}
