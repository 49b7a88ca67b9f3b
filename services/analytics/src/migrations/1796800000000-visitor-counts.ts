import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The visitor-day tables and what their counts are kept by. */
const COUNTED = [
  { rows: 'visitor_days', counts: 'visitor_counts', key: 'url_id', type: 'varchar(50)' },
  {
    rows: 'account_visitor_days',
    counts: 'account_visitor_counts',
    key: 'owner_id',
    type: 'varchar(64)',
  },
] as const;

/**
 * Visitor-days counted per link (and per owner) and day, so that a range's unique visitors sum
 * a row a day instead of counting every visitor-day (millions over 30 days of a busy account).
 * Kept by statement triggers on the visitor-day tables, from the rows really inserted or deleted
 * (an upsert that only moves a visitor's last visit adds nothing): every writer keeps them
 * exact, the previous release's ingest included. The trigger is created before the counts are
 * filled, in this migration's transaction: it locks writers out until both are there.
 */
export class VisitorCounts1796800000000 implements MigrationInterface {
  name = 'VisitorCounts1796800000000';

  async up(runner: QueryRunner): Promise<void> {
    for (const { rows, counts, key, type } of COUNTED) {
      await runner.query(`
        CREATE TABLE analytics.${counts} (
          ${key} ${type} NOT NULL,
          day date NOT NULL,
          visitors bigint NOT NULL,
          PRIMARY KEY (${key}, day)
        )`);
      await runner.query(`
        CREATE FUNCTION analytics.count_${rows}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO analytics.${counts} AS c (${key}, day, visitors)
          SELECT ${key}, day, CASE TG_OP WHEN 'INSERT' THEN count(*) ELSE -count(*) END
          FROM changed GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (${key}, day) DO UPDATE SET visitors = c.visitors + EXCLUDED.visitors;
          IF TG_OP = 'DELETE' THEN
            DELETE FROM analytics.${counts} c USING (SELECT DISTINCT ${key}, day FROM changed) d
            WHERE c.${key} = d.${key} AND c.day = d.day AND c.visitors <= 0;
          END IF;
          RETURN NULL;
        END $$`);
      for (const [event, table] of [
        ['INSERT', 'NEW'],
        ['DELETE', 'OLD'],
      ] as const) {
        await runner.query(
          `CREATE TRIGGER ${rows}_${event.toLowerCase()}_counted AFTER ${event}
           ON analytics.${rows} REFERENCING ${table} TABLE AS changed
           FOR EACH STATEMENT EXECUTE FUNCTION analytics.count_${rows}()`,
        );
      }
      await runner.query(
        `INSERT INTO analytics.${counts} (${key}, day, visitors)
         SELECT ${key}, day, count(*) FROM analytics.${rows} GROUP BY 1, 2`,
      );
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const { rows, counts } of COUNTED) {
      await runner.query(`DROP TRIGGER ${rows}_insert_counted ON analytics.${rows}`);
      await runner.query(`DROP TRIGGER ${rows}_delete_counted ON analytics.${rows}`);
      await runner.query(`DROP FUNCTION analytics.count_${rows}()`);
      await runner.query(`DROP TABLE analytics.${counts}`);
    }
  }
}
