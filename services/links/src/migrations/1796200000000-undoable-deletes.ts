import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delete can be undone for a few seconds: the link stays, marked deleted (no redirect, not
 * listed), and its removal waits in the outbox until `purge_after`, when the link and its
 * visits go as before. Rows already in the outbox are due at once. `cache_told` records that
 * the link cache has marked the link gone, so a failed marking is retried within the window.
 */
export class UndoableDeletes1796200000000 implements MigrationInterface {
  name = 'UndoableDeletes1796200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE links.links ADD COLUMN deleted_at timestamptz');
    await runner.query(
      `ALTER TABLE links.removed_links
         ADD COLUMN purge_after timestamptz NOT NULL DEFAULT now(),
         ADD COLUMN cache_told boolean NOT NULL DEFAULT false`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DELETE FROM links.links WHERE deleted_at IS NOT NULL');
    await runner.query(
      'ALTER TABLE links.removed_links DROP COLUMN purge_after, DROP COLUMN cache_told',
    );
    await runner.query('ALTER TABLE links.links DROP COLUMN deleted_at');
  }
}
