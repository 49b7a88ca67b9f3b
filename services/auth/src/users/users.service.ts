import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import type { SessionUser } from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import type { DataSource } from 'typeorm';
import type { LocalIdentity } from '../sign-in/local-sign-in';
import type { GoogleIdentity } from './google-identity';

interface UserRow {
  id: string;
  full_name: string;
  picture: string;
}

export function toSessionUser(row: UserRow): SessionUser {
  return { id: row.id, fullName: row.full_name, profilePicture: row.picture };
}

/**
 * Users as Google knows them: created at the first sign-in, refreshed at every one after.
 * Local users (the try-out sign-in) are created at their first sign-in and never changed.
 */
@Injectable()
export class UsersService {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  async upsert(identity: GoogleIdentity): Promise<SessionUser> {
    const rows: UserRow[] = await this.db().query(
      `INSERT INTO auth.users (google_id, full_name, picture, email)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (google_id) DO UPDATE SET
         full_name = EXCLUDED.full_name,
         picture = EXCLUDED.picture,
         email = EXCLUDED.email,
         updated_at = now()
       RETURNING id, full_name, picture`,
      [identity.googleId, identity.fullName, identity.picture, identity.email],
    );
    const row = rows[0];
    if (!row) throw new Error('user upsert returned no row');
    return toSessionUser(row);
  }

  /**
   * The local account of this name, made at its first sign-in; null when the account of
   * its key is spelled differently ("  aLiCe " for Alice, or a look-alike): a local sign-in
   * never takes over, nor renames, an account by another spelling.
   */
  async local(identity: LocalIdentity): Promise<SessionUser | null> {
    const found: UserRow[] = await this.db().query(
      'SELECT id, full_name, picture FROM auth.users WHERE google_id = ANY($1)',
      [[identity.key, identity.legacyKey]],
    );
    const own = found.find((row) => row.full_name === identity.fullName);
    if (own) return toSessionUser(own);
    if (found.length > 0) return null;
    const made: UserRow[] = await this.db().query(
      `INSERT INTO auth.users (google_id, full_name, picture, email) VALUES ($1, $2, '', NULL)
       ON CONFLICT (google_id) DO NOTHING
       RETURNING id, full_name, picture`,
      [identity.key, identity.fullName],
    );
    const row = made[0];
    if (row) return toSessionUser(row);
    // Another sign-in made it a moment ago: the same rule for the account it made.
    const [raced] = await this.db().query<UserRow[]>(
      'SELECT id, full_name, picture FROM auth.users WHERE google_id = $1',
      [identity.key],
    );
    return raced?.full_name === identity.fullName ? toSessionUser(raced) : null;
  }

  private db(): DataSource {
    if (!this.database.isConnected) throw new ServiceUnavailableException('Database unavailable');
    return this.database.dataSource;
  }
}
