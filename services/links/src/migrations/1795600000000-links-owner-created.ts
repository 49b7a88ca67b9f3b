import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's links newest first, a page at a time (GET /api/user, /api/links): the index
 * holds them in the pages' order, so a page reads its rows and stops, and a cursor's
 * (created_at, code) is where the scan starts, however deep the page.
 */
export class LinksOwnerCreated1795600000000 implements MigrationInterface {
  name = 'LinksOwnerCreated1795600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE INDEX links_owner_created_idx ON links.links (owner_id, created_at DESC, code DESC)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX links.links_owner_created_idx');
  }
}
