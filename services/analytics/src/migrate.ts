import { migrateAndExit } from '@shortener/chassis-postgres';
import { analyticsMigrations } from './migrations';

// `node dist/migrate.js`: what a Kubernetes Job runs before the Deployment rolls out.
void migrateAndExit({ service: 'analytics', schema: 'analytics', migrations: analyticsMigrations });
