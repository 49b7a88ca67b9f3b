import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { testServers } from '@shortener/testkit';
import { analyticsMigrations } from './index';

/**
 * For tests: a database of their own beside the test server's, named from `prefix`, with the
 * analytics schema migrated; `close` drops it. Only specs import this.
 */
export function ownAnalyticsDatabase(prefix: string) {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const url = new URL(testServers.databaseUrl);
  url.pathname = `/${name}`;
  const admin = new Client({ connectionString: testServers.databaseUrl });
  let source: DataSource | undefined;
  return {
    url: url.toString(),
    async open(): Promise<DataSource> {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      source = new DataSource({
        type: 'postgres',
        url: url.toString(),
        migrations: analyticsMigrations,
        migrationsTableName: 'migrations',
        migrationsTransactionMode: 'each',
      });
      await source.initialize();
      await source.query('CREATE SCHEMA IF NOT EXISTS analytics');
      await source.runMigrations({ transaction: 'each' });
      return source;
    },
    async close(): Promise<void> {
      await source?.destroy();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
