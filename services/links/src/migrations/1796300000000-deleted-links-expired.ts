import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A link deleted within its undo window reads as expired to code that does not know
 * `deleted_at` (the previous release's links pods, during a rolling update: they would list
 * it and redirect to it): its expiry is moved to the deletion and the real one kept in
 * `expires_at_before_delete` for a restore. Links already marked deleted get the same.
 */
export class DeletedLinksExpired1796300000000 implements MigrationInterface {
  name = 'DeletedLinksExpired1796300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE links.links ADD COLUMN expires_at_before_delete timestamptz');
    await runner.query(
      `UPDATE links.links
         SET expires_at_before_delete = expires_at, expires_at = least(expires_at, deleted_at)
       WHERE deleted_at IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `UPDATE links.links SET expires_at = expires_at_before_delete
       WHERE expires_at_before_delete IS NOT NULL`,
    );
    await runner.query('ALTER TABLE links.links DROP COLUMN expires_at_before_delete');
  }
}
