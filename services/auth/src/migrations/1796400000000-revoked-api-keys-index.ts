import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Revoked keys are purged after their retention: the purge finds them by this index. */
export class RevokedApiKeysIndex1796400000000 implements MigrationInterface {
  name = 'RevokedApiKeysIndex1796400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE INDEX api_keys_revoked_idx ON auth.api_keys (revoked_at) WHERE revoked_at IS NOT NULL',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX auth.api_keys_revoked_idx');
  }
}
