import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Links on branded domains, and rules on links: nullable columns only, so the previous release
 * runs beside this one (it neither reads nor writes them). A domain link's `slug` is its
 * back-half on `domain`, unique there in any letter case while its row lasts (a deleted one
 * keeps it through its undo window); `code` stays every link's id. The password is only ever
 * stored as its hash.
 */
export class BrandedLinks1796600000000 implements MigrationInterface {
  name = 'BrandedLinks1796600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE links.links
         ADD COLUMN domain varchar(253),
         ADD COLUMN slug varchar(50),
         ADD COLUMN ios_url text,
         ADD COLUMN android_url text,
         ADD COLUMN geo_urls jsonb,
         ADD COLUMN password_hash varchar(200),
         ADD COLUMN max_visits integer`,
    );
    await runner.query(
      `CREATE UNIQUE INDEX links_domain_slug_key ON links.links (domain, lower(slug))
         WHERE domain IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX links.links_domain_slug_key');
    await runner.query(
      `ALTER TABLE links.links
         DROP COLUMN domain, DROP COLUMN slug, DROP COLUMN ios_url, DROP COLUMN android_url,
         DROP COLUMN geo_urls, DROP COLUMN password_hash, DROP COLUMN max_visits`,
    );
  }
}
