import { CreateUsersAndSessions1763900100000 } from './1763900100000-create-users-and-sessions';
import { AddSessionLastSeen1795497243066 } from './1795497243066-add-session-last-seen';
import { CreateApiKeys1796000000000 } from './1796000000000-create-api-keys';
import { RevokedApiKeysIndex1796400000000 } from './1796400000000-revoked-api-keys-index';

/** Every migration of the `auth` schema, oldest first. */
export const authMigrations = [
  CreateUsersAndSessions1763900100000,
  AddSessionLastSeen1795497243066,
  CreateApiKeys1796000000000,
  RevokedApiKeysIndex1796400000000,
];
