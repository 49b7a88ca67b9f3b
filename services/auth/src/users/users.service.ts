import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import type { SessionUser } from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis/database';
import type { GoogleIdentity } from './google-identity';

interface UserRow {
  id: string;
  full_name: string;
  picture: string;
}

export function toSessionUser(row: UserRow): SessionUser {
  return { id: row.id, fullName: row.full_name, profilePicture: row.picture };
}

/** Users as Google knows them: created at the first sign-in, refreshed at every one after. */
@Injectable()
export class UsersService {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  async upsert(identity: GoogleIdentity): Promise<SessionUser> {
    if (!this.database.isConnected) throw new ServiceUnavailableException('Database unavailable');
    const rows: UserRow[] = await this.database.dataSource.query(
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
}
