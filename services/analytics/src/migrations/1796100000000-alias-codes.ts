import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every table that names a link by its code. */
const LINK_TABLES = [
  'visits',
  'link_stats',
  'deleted_links',
  'visit_hours',
  'visit_breakdowns',
  'visit_breakdown_hours',
  'visitor_days',
];

/**
 * Aliases: a link's code may be up to 50 characters. Widening a varchar is a
 * change of the catalogue in PostgreSQL; no table is rewritten.
 */
export class AliasCodes1796100000000 implements MigrationInterface {
  name = 'AliasCodes1796100000000';

  async up(runner: QueryRunner): Promise<void> {
    for (const table of LINK_TABLES) {
      await runner.query(`ALTER TABLE analytics.${table} ALTER COLUMN url_id TYPE varchar(50)`);
    }
  }

  async down(): Promise<void> {
    // Narrowing again would fail on any alias stored: the wider columns stay.
  }
}
