import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { testServers } from '@shortener/testkit';
import { CreateLinks1763900000000 } from './1763900000000-create-links';
import { Aliases1796100000000 } from './1796100000000-aliases';

// A links database from before aliases (a database of its own, made and dropped here), holding
// generated codes that differ only in letter case, as a large one may: the migration must
// build the unique index without case all the same, and aliases must still meet the rule.

describe('the aliases migration', () => {
  const name = `links_aliases_${randomBytes(4).toString('hex')}`;
  const url = new URL(testServers.databaseUrl);
  url.pathname = `/${name}`;
  const admin = new Client({ connectionString: testServers.databaseUrl });

  const migrate = async (migrations: Array<new () => object>): Promise<DataSource> => {
    const source = new DataSource({
      type: 'postgres',
      url: url.toString(),
      migrations,
      migrationsTableName: 'migrations',
      migrationsTransactionMode: 'each',
    });
    await source.initialize();
    await source.query('CREATE SCHEMA IF NOT EXISTS links');
    await source.runMigrations({ transaction: 'each' });
    return source;
  };

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  });

  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('keeps existing case twins, and refuses any new code equal to a live one without case', async () => {
    const before = await migrate([CreateLinks1763900000000]);
    for (const code of ['AbCdEf1', 'abcdef1', 'ABCDEF1', 'Zz00000']) {
      await before.query(
        `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at)
         VALUES ($1, 'https://example.com/', NULL, now(), now() + interval '7 days')`,
        [code],
      );
    }
    await before.destroy();

    const after = await migrate([CreateLinks1763900000000, Aliases1796100000000]);
    try {
      const rows: Array<{ code: string; case_twin: boolean }> = await after.query(
        'SELECT code, case_twin FROM links.links',
      );
      // One of each group stays in the unique index; the others are twins outside it.
      expect(
        rows
          .filter((row) => !row.case_twin)
          .map((row) => row.code.toLowerCase())
          .sort(),
      ).toEqual(['abcdef1', 'zz00000']);
      expect(rows.filter((row) => row.case_twin)).toHaveLength(2);
      const insert = (code: string) =>
        after.query(
          `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at)
           VALUES ($1, 'https://example.com/', 'u', now(), now() + interval '7 days')`,
          [code],
        );
      await expect(insert('zZ00000')).rejects.toThrow(/links_code_folded_key/);
      await expect(insert('abcDEF1')).rejects.toThrow(/links_code_folded_key/);
      await insert('a-much-longer-alias_than-seven-characters');
      await expect(insert('A-MUCH-LONGER-ALIAS_THAN-SEVEN-CHARACTERS')).rejects.toThrow(
        /links_code_folded_key/,
      );
    } finally {
      await after.destroy();
    }
  });
});
