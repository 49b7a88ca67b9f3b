import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A visit's campaign fields (the short link's utm_source, utm_medium, utm_campaign): nullable
 * columns without a default, a change of the catalogue only (no partition is rewritten), which
 * the previous release's INSERT, naming its own columns, leaves null (expand only).
 */
export class VisitUtm1796350000000 implements MigrationInterface {
  name = 'VisitUtm1796350000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE analytics.visits
         ADD COLUMN IF NOT EXISTS utm_source text,
         ADD COLUMN IF NOT EXISTS utm_medium text,
         ADD COLUMN IF NOT EXISTS utm_campaign text`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE analytics.visits
         DROP COLUMN IF EXISTS utm_source,
         DROP COLUMN IF EXISTS utm_medium,
         DROP COLUMN IF EXISTS utm_campaign`,
    );
  }
}
