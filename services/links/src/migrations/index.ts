import { CreateLinks1763900000000 } from './1763900000000-create-links';

/** Every migration of the `links` schema, oldest first. */
export const linksMigrations = [CreateLinks1763900000000];
