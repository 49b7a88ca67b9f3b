import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether the link cache has been told of a domain's last delete or restore: false from the
 * change until its links' entries are marked gone or written again, so a cache that could not
 * be told at the time is told by a later round (as a link's removal is). Rows already there
 * were told when they changed. A release before this one leaves it alone.
 */
export class DomainCacheTold1796800000000 implements MigrationInterface {
  name = 'DomainCacheTold1796800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE links.domains ADD COLUMN cache_told boolean NOT NULL DEFAULT true',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE links.domains DROP COLUMN cache_told');
  }
}
