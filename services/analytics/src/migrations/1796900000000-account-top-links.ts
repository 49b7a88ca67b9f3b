import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An account's top links without summing every link's every day on each read (20,000 links
 * over 30 days are 600,000 rows): per owner and range, the part of its window before the
 * current hour or day, summed once (account_top_links, built by the reads) and valid while
 * the owner's epoch is the one it was built at. Statement triggers raise the epoch whenever a
 * link's rows of a past hour or day change (a late visit, a link told or deleted), whoever
 * writes them. The lists other than `link` get indexes of their own (without the link rows).
 */
export class AccountTopLinks1796900000000 implements MigrationInterface {
  name = 'AccountTopLinks1796900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE analytics.account_link_epochs (
        owner_id varchar(64) PRIMARY KEY,
        day_epoch bigint NOT NULL DEFAULT 0,
        hour_epoch bigint NOT NULL DEFAULT 0
      )`);
    // Per owner and range: the hour or day its part was summed up to, at which epoch.
    await runner.query(`
      CREATE TABLE analytics.account_top_links_built (
        owner_id varchar(64) NOT NULL,
        span text NOT NULL,
        until timestamptz NOT NULL,
        epoch bigint NOT NULL,
        PRIMARY KEY (owner_id, span)
      )`);
    await runner.query(`
      CREATE TABLE analytics.account_top_links (
        owner_id varchar(64) NOT NULL,
        span text NOT NULL,
        url_id varchar(50) NOT NULL,
        visits bigint NOT NULL,
        PRIMARY KEY (owner_id, span, url_id)
      )`);
    // The best kept links first: a read sums only those that can be among the top.
    await runner.query(
      `CREATE INDEX account_top_links_visits_idx
       ON analytics.account_top_links (owner_id, span, visits DESC)`,
    );
    // A past row changes: the rows of a day (an hour) that has begun by a minute from now, so
    // that a transaction committing just after midnight (the hour) counts as late.
    for (const [table, column, epoch, past] of [
      [
        'account_breakdowns',
        'day',
        'day_epoch',
        `day < ((clock_timestamp() + interval '1 minute') AT TIME ZONE 'UTC')::date`,
      ],
      [
        'account_breakdown_hours',
        'hour',
        'hour_epoch',
        `hour < date_trunc('hour', clock_timestamp() + interval '1 minute', 'UTC')
         AND hour >= clock_timestamp() - interval '25 hours'`,
      ],
    ] as const) {
      await runner.query(`
        CREATE FUNCTION analytics.${table}_links_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO analytics.account_link_epochs AS e (owner_id, ${epoch})
          SELECT DISTINCT owner_id, 1 FROM changed WHERE dimension = 'link' AND ${past}
          ORDER BY 1
          ON CONFLICT (owner_id) DO UPDATE SET ${epoch} = e.${epoch} + 1;
          RETURN NULL;
        END $$`);
      for (const [event, rows] of [
        ['INSERT', 'NEW'],
        ['UPDATE', 'NEW'],
        ['DELETE', 'OLD'],
      ] as const) {
        await runner.query(
          `CREATE TRIGGER ${table}_${event.toLowerCase()}_links AFTER ${event}
           ON analytics.${table} REFERENCING ${rows} TABLE AS changed
           FOR EACH STATEMENT EXECUTE FUNCTION analytics.${table}_links_changed()`,
        );
      }
      await runner.query(
        `CREATE INDEX ${table}_lists_idx ON analytics.${table} (owner_id, ${column}, dimension, value)
         INCLUDE (visits) WHERE dimension <> 'link'`,
      );
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['account_breakdowns', 'account_breakdown_hours']) {
      for (const event of ['insert', 'update', 'delete']) {
        await runner.query(`DROP TRIGGER ${table}_${event}_links ON analytics.${table}`);
      }
      await runner.query(`DROP FUNCTION analytics.${table}_links_changed()`);
      await runner.query(`DROP INDEX analytics.${table}_lists_idx`);
    }
    for (const table of ['account_top_links', 'account_top_links_built', 'account_link_epochs']) {
      await runner.query(`DROP TABLE analytics.${table}`);
    }
  }
}
