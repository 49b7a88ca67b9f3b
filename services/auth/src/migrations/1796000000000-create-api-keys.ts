import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys. Like sessions, only a hash of each key is kept: the database alone
 * cannot call anything. A revoked key keeps its row (revoked_at) for a retention, so the id
 * of a key found leaked still names its owner and when it stopped working.
 */
export class CreateApiKeys1796000000000 implements MigrationInterface {
  name = 'CreateApiKeys1796000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE auth.api_keys (
        id varchar(10) PRIMARY KEY,
        secret_hash char(64) NOT NULL UNIQUE,
        user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
        name text NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await runner.query(
      'CREATE INDEX api_keys_user_idx ON auth.api_keys (user_id, created_at) WHERE revoked_at IS NULL',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE auth.api_keys');
  }
}
