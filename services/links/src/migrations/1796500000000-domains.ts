import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Branded domains: one row per host (so one owner at a time), the token its TXT record must
 * hold, when it was verified; a removed one is kept, `deleted_at` set, until `purge_after`
 * (the undo window), and holds its host meanwhile.
 */
export class Domains1796500000000 implements MigrationInterface {
  name = 'Domains1796500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE TABLE links.domains (
         host varchar(253) PRIMARY KEY,
         owner_id varchar(64) NOT NULL,
         token varchar(64) NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         verified_at timestamptz,
         deleted_at timestamptz,
         purge_after timestamptz
       )`,
    );
    await runner.query(
      'CREATE INDEX domains_owner_created_idx ON links.domains (owner_id, created_at DESC)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE links.domains');
  }
}
