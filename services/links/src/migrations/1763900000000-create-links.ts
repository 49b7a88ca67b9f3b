import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateLinks1763900000000 implements MigrationInterface {
  name = 'CreateLinks1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE links.links (
        code varchar(16) PRIMARY KEY,
        original_url text NOT NULL,
        owner_id varchar(64),
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await runner.query(
      'CREATE INDEX links_owner_expires_idx ON links.links (owner_id, expires_at)',
    );
    await runner.query('CREATE INDEX links_expires_idx ON links.links (expires_at)');
    await runner.query(`
      CREATE TABLE links.removed_links (
        code varchar(16) PRIMARY KEY,
        removed_at timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE links.removed_links');
    await runner.query('DROP TABLE links.links');
  }
}
