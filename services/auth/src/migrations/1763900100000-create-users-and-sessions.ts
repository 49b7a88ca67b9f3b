import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateUsersAndSessions1763900100000 implements MigrationInterface {
  name = 'CreateUsersAndSessions1763900100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE auth.users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        google_id varchar(255) NOT NULL UNIQUE,
        full_name text NOT NULL,
        picture text NOT NULL,
        email text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Only a hash of the session id is stored: the database alone cannot sign anyone in.
    await runner.query(`
      CREATE TABLE auth.sessions (
        id_hash char(64) PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await runner.query('CREATE INDEX sessions_expires_idx ON auth.sessions (expires_at)');
    await runner.query('CREATE INDEX sessions_user_idx ON auth.sessions (user_id)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE auth.sessions');
    await runner.query('DROP TABLE auth.users');
  }
}
