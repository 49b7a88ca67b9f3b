import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Analytics filters an account's visits by branded domain, so it is told a link's domain as
 * it is told its owner: a link moved to a domain or back goes into the owner_notices outbox
 * again (a trigger, whatever release moves it), and so does every owned link on a domain now.
 */
export class OwnerNoticeDomains1796900000000 implements MigrationInterface {
  name = 'OwnerNoticeDomains1796900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE TRIGGER links_notice_domain AFTER UPDATE OF domain ON links.links
         FOR EACH ROW
         WHEN (NEW.owner_id IS NOT NULL AND OLD.domain IS DISTINCT FROM NEW.domain)
         EXECUTE FUNCTION links.notice_owner()`,
    );
    await runner.query(
      `INSERT INTO links.owner_notices (code)
       SELECT code FROM links.links WHERE owner_id IS NOT NULL AND domain IS NOT NULL
       ON CONFLICT DO NOTHING`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TRIGGER links_notice_domain ON links.links');
  }
}
