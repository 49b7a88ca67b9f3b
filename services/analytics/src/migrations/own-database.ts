import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { testServers } from '@shortener/testkit';
import { analyticsMigrations } from './index';

/** A database name of its own beside the test server's, its URL, and a client to make it. */
function ownDatabase(prefix: string) {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const url = new URL(testServers.databaseUrl);
  url.pathname = `/${name}`;
  const admin = new Client({ connectionString: testServers.databaseUrl });
  return {
    url: url.toString(),
    async create(): Promise<void> {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
    },
    async drop(): Promise<void> {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * For tests: a database of their own beside the test server's, named from `prefix`, with the
 * analytics schema migrated; `close` drops it. Only specs import this.
 */
export function ownAnalyticsDatabase(prefix: string) {
  const own = ownDatabase(prefix);
  let source: DataSource | undefined;
  return {
    url: own.url,
    async open(): Promise<DataSource> {
      await own.create();
      source = new DataSource({
        type: 'postgres',
        url: own.url,
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
      await own.drop();
    },
  };
}

/**
 * As ownAnalyticsDatabase, opened as the service opens it: a ManagedDataSource on the
 * analytics schema, which migrates it (for the service's own repositories).
 */
export function ownManagedAnalyticsDatabase(prefix: string) {
  const own = ownDatabase(prefix);
  let database: ManagedDataSource | undefined;
  return {
    async open(): Promise<ManagedDataSource> {
      await own.create();
      database = new ManagedDataSource({
        url: own.url,
        schema: 'analytics',
        entities: [],
        migrations: analyticsMigrations,
        logger: pino({ level: 'silent' }),
        applicationName: `${prefix}-test`,
        migrate: true,
      });
      await database.start();
      return database;
    },
    async close(): Promise<void> {
      await database?.close();
      await own.drop();
    },
  };
}
