import {
  DataSource,
  MigrationExecutor,
  type EntitySchema,
  type MixedList,
  type QueryRunner,
} from 'typeorm';
import type { Logger } from 'pino';
import {
  env,
  loadConfig,
  createLogger,
  retryForever,
  exitOnStartupError,
  type ReadinessCheck,
} from '@shortener/chassis';
import { inProcessDriver } from './in-process';

/** How often an instance tries for the migration lock another instance holds. */
const MIGRATION_LOCK_POLL_MS = 100;

/** The variables of a service with a schema of its own (spread into its config shape). */
export const databaseConfigShape = {
  DATABASE_URL: env.url(['postgres', 'postgresql'], 'postgres://postgres@127.0.0.1:5432/shortener'),
  /** Migrations run at start-up; false where a migration Job runs them (migrateAndExit). */
  DB_MIGRATE: env.bool(true),
};

export interface DatabaseOptions {
  url: string;
  /** The service's own schema: each service owns one and never touches another's. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own types
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own types
  migrations: MixedList<Function | string>;
  logger: Logger;
  applicationName: string;
  poolSize?: number;
  /** Run pending migrations at start-up (off when a separate job runs them). */
  migrate: boolean;
}

/**
 * A TypeORM data source that connects in the background, retrying with back-off, so the
 * service is alive (and says it is not ready) while PostgreSQL is still coming up.
 * Migrations run under an advisory lock, so several instances starting together are safe.
 */
export class ManagedDataSource {
  readonly dataSource: DataSource;
  private connected = false;
  /** Seen holding every migration of this image: schemas only move forward, so for good. */
  private schemaCurrent = false;
  private readonly abort = new AbortController();
  private starting: Promise<void> | undefined;

  constructor(private readonly options: DatabaseOptions) {
    this.dataSource = new DataSource({
      type: 'postgres',
      url: options.url,
      driver: inProcessDriver(options.url),
      schema: options.schema,
      entities: options.entities,
      migrations: options.migrations,
      migrationsTableName: 'migrations',
      migrationsTransactionMode: 'each',
      synchronize: false,
      logging: false,
      applicationName: options.applicationName,
      extra: {
        max: options.poolSize ?? 10,
        connectionTimeoutMillis: 5000,
        idleTimeoutMillis: 30_000,
      },
    });
  }

  /** Starts connecting; resolves once connected and migrated. */
  start(): Promise<void> {
    this.starting ??= retryForever(
      () => this.connectOnce(),
      (error, delayMs) =>
        this.options.logger.warn(
          { err: error instanceof Error ? error.message : String(error), retryInMs: delayMs },
          'PostgreSQL not available yet',
        ),
      { signal: this.abort.signal },
    ).then(() => {
      this.connected = true;
      this.options.logger.info({ schema: this.options.schema }, 'PostgreSQL connected');
    });
    return this.starting;
  }

  get isConnected(): boolean {
    return this.connected;
  }

  async check(): Promise<void> {
    if (!this.connected) throw new Error('not connected yet');
    await this.dataSource.query('SELECT 1');
  }

  /**
   * Rejects while the schema lacks a migration this image carries (its release's migration
   * Job has not run, or failed), so new pods stay out of service instead of serving on a
   * schema they do not know. A schema ahead of the image, as after a rollback, is fine:
   * migrations only add what older code ignores.
   */
  async checkSchema(): Promise<void> {
    if (this.schemaCurrent) return;
    if (!this.connected) throw new Error('not connected yet');
    const pending = await new MigrationExecutor(this.dataSource).getPendingMigrations();
    const newest = pending.at(-1);
    if (newest !== undefined) {
      throw new Error(
        `schema ${this.options.schema} lacks ${pending.length} migration(s) of this image, ` +
          `the newest ${newest.name}: run its migration Job (node dist/migrate.js)`,
      );
    }
    this.schemaCurrent = true;
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.starting?.catch(() => undefined);
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  /**
   * Takes the schema's migration lock, trying every MIGRATION_LOCK_POLL_MS, not waiting in
   * one statement: a statement waiting on the lock holds a snapshot, and a migration that
   * builds an index CONCURRENTLY in the instance holding it waits for every older snapshot to
   * go, so the two would wait for each other for good.
   */
  private async migrationLock(runner: QueryRunner, schema: string): Promise<void> {
    for (;;) {
      const [row] = (await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
        `migrations:${schema}`,
      ])) as Array<{ locked: boolean }>;
      if (row?.locked) return;
      if (this.abort.signal.aborted) throw new Error('closed while waiting to migrate');
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
    }
  }

  private async connectOnce(): Promise<void> {
    if (!this.dataSource.isInitialized) await this.dataSource.initialize();
    const { schema } = this.options;
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      await this.migrationLock(runner, schema);
      try {
        await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
        if (this.options.migrate) {
          const applied = await this.dataSource.runMigrations({ transaction: 'each' });
          for (const migration of applied) {
            this.options.logger.info({ migration: migration.name }, 'migration applied');
          }
        }
      } finally {
        await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${schema}`]);
      }
    } finally {
      await runner.release();
    }
  }
}

/** Not ready while the service's schema is older than its image's migrations (checkSchema). */
export function schemaReadiness(database: ManagedDataSource): ReadinessCheck {
  return { name: 'schema', check: () => database.checkSchema() };
}

export interface MigrateOptions {
  service: string;
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own types
  migrations: MixedList<Function | string>;
  /** Give up when PostgreSQL has not answered by then. */
  timeoutMs?: number;
}

/**
 * Applies a service's pending migrations and exits: the entry point of a migration Job, so
 * Deployments can start with DB_MIGRATE=false. Same lock and same code as at start-up.
 */
export async function migrateAndExit(options: MigrateOptions): Promise<never> {
  try {
    const config = loadConfig(`${options.service} migrate`, {
      DATABASE_URL: env.url(['postgres', 'postgresql']),
      LOG_LEVEL: env.logLevel(),
    });
    const logger = createLogger(`${options.service}-migrate`, config.LOG_LEVEL);
    const database = new ManagedDataSource({
      url: config.DATABASE_URL,
      schema: options.schema,
      entities: [],
      migrations: options.migrations,
      logger,
      applicationName: `${options.service}-migrate`,
      migrate: true,
    });
    const timeout = setTimeout(() => {
      logger.error(
        { timeoutMs: options.timeoutMs ?? 120_000 },
        'PostgreSQL did not answer in time',
      );
      process.exit(1);
    }, options.timeoutMs ?? 120_000);
    await database.start();
    clearTimeout(timeout);
    await database.close();
    logger.info({ schema: options.schema }, 'migrations up to date');
    logger.flush();
    process.exit(0);
  } catch (error) {
    exitOnStartupError(`${options.service} migrate`, error);
  }
}
