import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The 24-hour range's visitors without counting two days of visitor rows on each read: its
 * kept part (account_top_links_built, valid at the owner's hour epoch) also keeps how many of
 * the previous day's visitors were seen within the window; the current day's come from
 * account_visitor_counts. Null where nothing is kept that way (the day ranges).
 */
export class KeptVisitors1797100000000 implements MigrationInterface {
  name = 'KeptVisitors1797100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE analytics.account_top_links_built ADD COLUMN visitors bigint');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE analytics.account_top_links_built DROP COLUMN visitors');
  }
}
