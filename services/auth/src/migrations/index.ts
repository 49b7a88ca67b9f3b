import { CreateUsersAndSessions1763900100000 } from './1763900100000-create-users-and-sessions';

/** Every migration of the `auth` schema, oldest first. */
export const authMigrations = [CreateUsersAndSessions1763900100000];
