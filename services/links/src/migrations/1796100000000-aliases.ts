import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Aliases: codes up to 50 characters, unique in any case, removed codes kept from reuse.
 * Existing codes differing only in case ("case twins") stay outside the unique index.
 */
export class Aliases1796100000000 implements MigrationInterface {
  name = 'Aliases1796100000000';

  async up(runner: QueryRunner): Promise<void> {
    // Widening a varchar rewrites nothing in PostgreSQL: it is a change of the catalogue.
    await runner.query('ALTER TABLE links.links ALTER COLUMN code TYPE varchar(50)');
    await runner.query('ALTER TABLE links.removed_links ALTER COLUMN code TYPE varchar(50)');
    await runner.query(
      'ALTER TABLE links.links ADD COLUMN case_twin boolean NOT NULL DEFAULT false',
    );
    await runner.query(`
      UPDATE links.links SET case_twin = true WHERE code IN (
        SELECT code FROM (
          SELECT code,
            row_number() OVER (PARTITION BY lower(code) ORDER BY created_at, code COLLATE "C")
              AS place
          FROM links.links
        ) AS folded
        WHERE place > 1
      )`);
    await runner.query(
      'CREATE UNIQUE INDEX links_code_folded_key ON links.links (lower(code)) WHERE NOT case_twin',
    );
    await runner.query(
      'CREATE INDEX links_case_twins_idx ON links.links (lower(code)) WHERE case_twin',
    );
    await runner.query(`
      CREATE TABLE links.retired_codes (
        code varchar(50) PRIMARY KEY,
        retired_at timestamptz NOT NULL
      )`);
    await runner.query(
      'CREATE INDEX retired_codes_folded_idx ON links.retired_codes (lower(code))',
    );
    await runner.query(
      'CREATE INDEX retired_codes_retired_at_idx ON links.retired_codes (retired_at)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE links.retired_codes');
    await runner.query('DROP INDEX links.links_case_twins_idx');
    await runner.query('DROP INDEX links.links_code_folded_key');
    await runner.query('ALTER TABLE links.links DROP COLUMN case_twin');
  }
}
