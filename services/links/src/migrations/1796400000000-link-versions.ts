import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version per link for its cache entries (docs/architecture.md), raised by a trigger on every
 * UPDATE, either release's; it starts at creation time in ms, above any former link of the code.
 */
export class LinkVersions1796400000000 implements MigrationInterface {
  name = 'LinkVersions1796400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE links.links ADD COLUMN version bigint NOT NULL DEFAULT 0');
    await runner.query(
      `ALTER TABLE links.links ALTER COLUMN version
         SET DEFAULT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint`,
    );
    await runner.query(`
      CREATE FUNCTION links.next_link_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.version := greatest(
          OLD.version + 1,
          floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint
        );
        RETURN NEW;
      END
      $$`);
    await runner.query(
      `CREATE TRIGGER links_next_version BEFORE UPDATE ON links.links
         FOR EACH ROW EXECUTE FUNCTION links.next_link_version()`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TRIGGER links_next_version ON links.links');
    await runner.query('DROP FUNCTION links.next_link_version()');
    await runner.query('ALTER TABLE links.links DROP COLUMN version');
  }
}
