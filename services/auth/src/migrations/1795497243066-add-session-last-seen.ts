import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each session was last used, for the idle timeout (SESSION_IDLE_DAYS). Sessions that
 * exist already count as used now: none ends the moment this runs.
 */
export class AddSessionLastSeen1795497243066 implements MigrationInterface {
  name = 'AddSessionLastSeen1795497243066';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE auth.sessions ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now()',
    );
    // The purge job deletes by it.
    await runner.query('CREATE INDEX sessions_last_seen_idx ON auth.sessions (last_seen_at)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX auth.sessions_last_seen_idx');
    await runner.query('ALTER TABLE auth.sessions DROP COLUMN last_seen_at');
  }
}
