import { migrateAndExit } from '@shortener/chassis-postgres';
import { authMigrations } from './migrations';

// `node dist/migrate.js`: what a Kubernetes Job runs before the Deployment rolls out.
void migrateAndExit({ service: 'auth', schema: 'auth', migrations: authMigrations });
