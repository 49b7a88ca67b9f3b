import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Account rollups: each link's owner (the links service tells it), and per owner the same
 * rollups as per link, raised in the transaction that stores the visits. Nothing to backfill:
 * the links service tells every owned link's owner once this runs, and telling adds the
 * link's rollups so far.
 */
export class AccountStats1796700000000 implements MigrationInterface {
  name = 'AccountStats1796700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE analytics.link_owners (
        url_id varchar(50) PRIMARY KEY,
        owner_id varchar(64) NOT NULL
      )`);
    await runner.query(
      'CREATE INDEX link_owners_owner_idx ON analytics.link_owners (owner_id, url_id)',
    );
    // Visits, people and bots per owner and UTC hour.
    await runner.query(`
      CREATE TABLE analytics.account_hours (
        owner_id varchar(64) NOT NULL,
        hour timestamptz NOT NULL,
        visits bigint NOT NULL,
        humans bigint NOT NULL,
        bots bigint NOT NULL,
        PRIMARY KEY (owner_id, hour)
      )`);
    // Per owner, UTC day, dimension (those of a link's, and `link`: the link's code) and value.
    await runner.query(`
      CREATE TABLE analytics.account_breakdowns (
        owner_id varchar(64) NOT NULL,
        day date NOT NULL,
        dimension text NOT NULL,
        value text NOT NULL,
        visits bigint NOT NULL,
        PRIMARY KEY (owner_id, day, dimension, value)
      )`);
    // The same per UTC hour, kept two days (the 24-hour range).
    await runner.query(`
      CREATE TABLE analytics.account_breakdown_hours (
        owner_id varchar(64) NOT NULL,
        hour timestamptz NOT NULL,
        dimension text NOT NULL,
        value text NOT NULL,
        visits bigint NOT NULL,
        PRIMARY KEY (owner_id, hour, dimension, value)
      )`);
    await runner.query(
      'CREATE INDEX account_breakdown_hours_hour_idx ON analytics.account_breakdown_hours (hour)',
    );
    // One row per visitor per owner per UTC day, with the last visit of that day.
    await runner.query(`
      CREATE TABLE analytics.account_visitor_days (
        owner_id varchar(64) NOT NULL,
        day date NOT NULL,
        visitor bytea NOT NULL,
        last_seen timestamptz NOT NULL,
        PRIMARY KEY (owner_id, day, visitor)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of [
      'account_visitor_days',
      'account_breakdown_hours',
      'account_breakdowns',
      'account_hours',
      'link_owners',
    ]) {
      await runner.query(`DROP TABLE analytics.${table}`);
    }
  }
}
