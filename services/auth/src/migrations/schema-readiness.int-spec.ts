import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  freePort,
  REPO_ROOT,
  startServiceProcess,
  testServers,
  waitFor,
  type ServiceProcess,
} from '@shortener/testkit';
import { CreateUsersAndSessions1763900100000 } from './1763900100000-create-users-and-sessions';
import { authMigrations } from '.';

// A release whose migration Job was skipped: auth's image has a migration its database lacks.
// Its pods must stay out of service until the Job has run (in Kubernetes, a rollout then waits
// with the old pods serving), and a database migrated past the image (a rollback) must not
// keep them out. Each case in a database of its own, made and dropped here; auth started from
// dist with DB_MIGRATE=false, as the Deployments run it.

const run = promisify(execFile);

interface Readiness {
  status: number;
  checks: Record<string, string>;
}

async function readiness(service: ServiceProcess): Promise<Readiness> {
  const response = await fetch(`${service.opsUrl}/readyz`);
  const body = (await response.json()) as { checks: Record<string, string> };
  return { status: response.status, checks: body.checks };
}

describe('auth with a schema older than its image', () => {
  const name = `auth_schema_${randomBytes(4).toString('hex')}`;
  const url = new URL(testServers.databaseUrl);
  url.pathname = `/${name}`;
  const admin = new Client({ connectionString: testServers.databaseUrl });
  const services: ServiceProcess[] = [];

  const startAuth = async (): Promise<ServiceProcess> => {
    const service = await startServiceProcess('auth', await freePort(), {
      DATABASE_URL: url.toString(),
      DB_MIGRATE: 'false',
      INTERNAL_API_SECRET: 'schema-readiness-test-secret',
    });
    services.push(service);
    return service;
  };

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    // The previous release's schema: its first migration only.
    const previous = new DataSource({
      type: 'postgres',
      url: url.toString(),
      schema: 'auth',
      migrations: [CreateUsersAndSessions1763900100000],
      migrationsTableName: 'migrations',
    });
    await previous.initialize();
    await previous.query('CREATE SCHEMA auth');
    await previous.runMigrations();
    await previous.destroy();
  });

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop('SIGKILL')));
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('is not ready, naming the schema and the migration it lacks, until the migration Job has run', async () => {
    const newest = authMigrations.at(-1)!.name;
    const auth = await startAuth();
    const before = await waitFor(
      async () => {
        const report = await readiness(auth);
        return report.checks['postgres'] === 'ok' ? report : undefined;
      },
      { what: 'auth connected to PostgreSQL' },
    );
    expect(before.status).toBe(503);
    expect(before.checks['schema']).toContain('schema auth');
    expect(before.checks['schema']).toContain(newest);

    // What the migration Job runs.
    await run(process.execPath, [path.join(REPO_ROOT, 'services/auth/dist/migrate.js')], {
      env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' },
    });
    const after = await waitFor(
      async () => {
        const report = await readiness(auth);
        return report.status === 200 ? report : undefined;
      },
      { what: 'auth ready once migrated' },
    );
    expect(after.checks['schema']).toBe('ok');
  });

  it('stays ready on a schema newer than its image (a rolled-back release)', async () => {
    // The database as the test above left it (migrated), plus a later release's migration.
    const database = new Client({ connectionString: url.toString() });
    await database.connect();
    try {
      await database.query(`INSERT INTO auth.migrations (timestamp, name) VALUES ($1, $2)`, [
        9_999_999_999_999,
        'FromALaterRelease9999999999999',
      ]);
    } finally {
      await database.end();
    }
    const auth = await startAuth();
    await waitFor(async () => (await readiness(auth)).status === 200, {
      what: 'auth ready on a newer schema',
    });
  });
});
