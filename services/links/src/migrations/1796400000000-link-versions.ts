import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version per link, written into its cache entries so that an older entry replayed into
 * Redis is told from the current one (docs/architecture.md, "The link cache is a cache, not
 * an authority"). Every UPDATE of a link (an edit, a delete, a restore, by this release or the
 * previous one during a rollout) raises it, by a trigger; it starts at the time of creation in
 * ms, so a code reused after its retirement starts above anything its former link had. Rows
 * already there start at 0, raised at their first change.
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
