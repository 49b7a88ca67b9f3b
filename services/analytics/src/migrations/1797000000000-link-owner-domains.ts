import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each owned link's branded domain, as the links service tells it with its owner (null on the
 * main origin, and until told): the account's `domain` filter reads the owner's links on it.
 * The previous release writes owners without it, which this release's reads take as none.
 */
export class LinkOwnerDomains1797000000000 implements MigrationInterface {
  name = 'LinkOwnerDomains1797000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE analytics.link_owners ADD COLUMN domain varchar(253)');
    await runner.query(
      `CREATE INDEX link_owners_domain_idx ON analytics.link_owners (owner_id, domain, url_id)
       WHERE domain IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX analytics.link_owners_domain_idx');
    await runner.query('ALTER TABLE analytics.link_owners DROP COLUMN domain');
  }
}
