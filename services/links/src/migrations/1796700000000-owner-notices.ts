import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An outbox of the links whose owner analytics has not been told yet (its account rollups):
 * a trigger adds each owned link as it is made, whatever the release that makes it; the
 * links made before are added here. OwnerNoticesService empties it.
 */
export class OwnerNotices1796700000000 implements MigrationInterface {
  name = 'OwnerNotices1796700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE links.owner_notices (code varchar(50) PRIMARY KEY)');
    await runner.query(`
      CREATE FUNCTION links.notice_owner() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO links.owner_notices (code) VALUES (NEW.code) ON CONFLICT DO NOTHING;
        RETURN NEW;
      END
      $$`);
    await runner.query(
      `CREATE TRIGGER links_notice_owner AFTER INSERT ON links.links
         FOR EACH ROW WHEN (NEW.owner_id IS NOT NULL) EXECUTE FUNCTION links.notice_owner()`,
    );
    await runner.query(
      `INSERT INTO links.owner_notices (code)
       SELECT code FROM links.links WHERE owner_id IS NOT NULL ON CONFLICT DO NOTHING`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TRIGGER links_notice_owner ON links.links');
    await runner.query('DROP FUNCTION links.notice_owner()');
    await runner.query('DROP TABLE links.owner_notices');
  }
}
