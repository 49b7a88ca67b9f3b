/**
 * The visits' monthly partitions (`visits_YYYY_MM`): made ahead, dropped whole past the
 * retention; a change waits at most LOCK_WAIT_MS for its lock, else runs next round.
 */

/** Longest wait for a lock on the visits table, and so the longest anyone waits behind one. */
export const LOCK_WAIT_MS = 1000;

/** Months made ahead of the current one, so ingest never meets a month without its table. */
export const MONTHS_AHEAD = 3;

/** What can run SQL: a DataSource, an EntityManager or a QueryRunner. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** Runs work in one transaction (TypeORM's DataSource.transaction or a QueryRunner's). */
export type Transact = <T>(work: (db: Queryable) => Promise<T>) => Promise<T>;

const PARTITION_NAME = /^visits_(\d{4})_(\d{2})$/;

/** The first instant of the UTC month holding `at`. */
export function monthOf(at: Date | number): Date {
  const date = new Date(at);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
}

export function addMonths(month: Date, months: number): Date {
  return new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + months, 1));
}

/** visits_2026_11 for November 2026. */
export function partitionName(month: Date): string {
  const mm = String(month.getUTCMonth() + 1).padStart(2, '0');
  return `visits_${month.getUTCFullYear()}_${mm}`;
}

/** The month a partition's name stands for, or undefined for any other table. */
export function monthOfPartition(name: string): Date | undefined {
  const match = PARTITION_NAME.exec(name);
  if (!match) return undefined;
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1));
}

/**
 * The oldest month kept with `retentionMonths`: that many whole months before the current
 * one, so every raw visit is kept at least that long before its partition goes.
 */
export function oldestKept(now: Date, retentionMonths: number): Date {
  return addMonths(monthOf(now), -retentionMonths);
}

/** Two rounds (two instances, or a round and the migration) never change partitions at once. */
async function serialize(db: Queryable): Promise<void> {
  await db.query(`SET LOCAL lock_timeout = '${LOCK_WAIT_MS}ms'`);
  await db.query("SELECT pg_advisory_xact_lock(hashtext('analytics.visits partitions'))");
}

/** The month tables in the schema, attached to `parent` or left detached by a broken drop. */
export async function monthTables(
  db: Queryable,
  parent = 'visits',
): Promise<Array<{ name: string; month: Date; attached: boolean }>> {
  const rows = (await db.query(
    `SELECT c.relname AS name,
            EXISTS (SELECT 1 FROM pg_inherits i
                    WHERE i.inhrelid = c.oid AND i.inhparent = $1::regclass) AS attached
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'analytics' AND c.relkind = 'r' AND c.relname ~ '^visits_[0-9]{4}_[0-9]{2}$'
     ORDER BY c.relname`,
    [`analytics.${parent}`],
  )) as Array<{ name: string; attached: boolean }>;
  return rows.flatMap(({ name, attached }) => {
    const month = monthOfPartition(name);
    return month ? [{ name, month, attached }] : [];
  });
}

/**
 * Makes a month's partition unless it exists: an empty table attached to the parent, which
 * locks the parent only in SHARE UPDATE EXCLUSIVE mode (reads and writes go on) and builds
 * its indexes on nothing. Answers whether it was made.
 */
export async function createMonth(
  transact: Transact,
  month: Date,
  parent = 'visits',
): Promise<boolean> {
  const name = partitionName(month);
  return transact(async (db) => {
    await serialize(db);
    const existing = (await db.query(
      `SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'analytics' AND c.relname = $1`,
      [name],
    )) as unknown[];
    if (existing.length > 0) return false;
    await db.query(`CREATE TABLE analytics.${name} (LIKE analytics.${parent} INCLUDING DEFAULTS)`);
    await db.query(
      `ALTER TABLE analytics.${parent} ATTACH PARTITION analytics.${name}
       FOR VALUES FROM ('${month.toISOString()}') TO ('${addMonths(month, 1).toISOString()}')`,
    );
    return true;
  });
}

/** Event ids forgotten per statement when a month goes. */
const ID_SLICE = 10_000;

/**
 * Drops a month of raw visits: detached first (a late event is then refused, not half-stored),
 * its ids out of `visit_ids` in slices, then the table; the next round finishes a broken drop.
 */
async function dropMonth(
  db: Queryable,
  transact: Transact,
  table: { name: string; attached: boolean },
): Promise<void> {
  if (table.attached) {
    await transact(async (tx) => {
      await serialize(tx);
      await tx.query(`ALTER TABLE analytics.visits DETACH PARTITION analytics.${table.name}`);
    });
  }
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const [row] = (await db.query(
      `WITH slice AS (
         SELECT id FROM analytics.${table.name} WHERE id > $1 ORDER BY id LIMIT $2
       ),
       gone AS (DELETE FROM analytics.visit_ids WHERE id IN (SELECT id FROM slice))
       SELECT (SELECT id FROM slice ORDER BY id DESC LIMIT 1) AS last,
              (SELECT count(*)::int FROM slice) AS ids`,
      [after, ID_SLICE],
    )) as Array<{ last: string | null; ids: number }>;
    if (!row?.last || row.ids < ID_SLICE) break;
    after = row.last;
  }
  await db.query(`DROP TABLE analytics.${table.name}`);
}

export interface PartitionRound {
  created: string[];
  dropped: string[];
}

/**
 * One maintenance round: the current month and MONTHS_AHEAD after it exist; with a retention,
 * months older than it are dropped (and detached tables left by a broken drop finished).
 */
export async function maintainPartitions(
  db: Queryable,
  transact: Transact,
  retentionMonths: number | undefined,
  now = new Date(),
): Promise<PartitionRound> {
  const [layout] = (await db.query(
    "SELECT relkind = 'p' AS partitioned FROM pg_class WHERE oid = 'analytics.visits'::regclass",
  )) as Array<{ partitioned: boolean }>;
  // Before the partitioning migration has swapped the tables there is nothing to keep.
  if (!layout?.partitioned) return { created: [], dropped: [] };
  const created: string[] = [];
  const current = monthOf(now);
  for (let ahead = 0; ahead <= MONTHS_AHEAD; ahead += 1) {
    const month = addMonths(current, ahead);
    if (await createMonth(transact, month)) created.push(partitionName(month));
  }
  const dropped: string[] = [];
  if (retentionMonths !== undefined) {
    const oldest = oldestKept(now, retentionMonths);
    for (const table of await monthTables(db)) {
      if (table.month < oldest) {
        await dropMonth(db, transact, table);
        dropped.push(table.name);
      }
    }
  }
  return { created, dropped };
}
