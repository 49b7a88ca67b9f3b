import { migrateAndExit } from '@shortener/chassis-postgres';
import { linksMigrations } from './migrations';

// `node dist/migrate.js`: what a Kubernetes Job runs before the Deployment rolls out.
void migrateAndExit({ service: 'links', schema: 'links', migrations: linksMigrations });
