import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAnalytics1763950000000 implements MigrationInterface {
  name = 'CreateAnalytics1763950000000';

  async up(runner: QueryRunner): Promise<void> {
    // The event id is the primary key, so a redelivered event inserts nothing.
    await runner.query(`
      CREATE TABLE analytics.visits (
        id uuid PRIMARY KEY,
        url_id varchar(16) NOT NULL,
        created_at timestamptz NOT NULL,
        ip_address varchar(64) NOT NULL,
        platform text NOT NULL,
        browser text NOT NULL,
        referrer text
      )`);
    // Serves a link's visitors newest first, a page at a time, and the delete by link.
    await runner.query(
      'CREATE INDEX visits_url_created_idx ON analytics.visits (url_id, created_at DESC, id DESC)',
    );
    // Kept beside the visits, in the same transaction, so counts for many links are one
    // index lookup each instead of counting visits.
    await runner.query(`
      CREATE TABLE analytics.link_stats (
        url_id varchar(16) PRIMARY KEY,
        visit_count bigint NOT NULL CHECK (visit_count >= 0)
      )`);
    await runner.query(`
      CREATE TABLE analytics.deleted_links (
        url_id varchar(16) PRIMARY KEY,
        deleted_at timestamptz NOT NULL
      )`);
    await runner.query(
      'CREATE INDEX deleted_links_deleted_at_idx ON analytics.deleted_links (deleted_at)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE analytics.deleted_links');
    await runner.query('DROP TABLE analytics.link_stats');
    await runner.query('DROP TABLE analytics.visits');
  }
}
