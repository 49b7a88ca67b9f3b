import {
  Inject,
  Injectable,
  ServiceUnavailableException,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { DAY_MS, type CurrentSession } from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis/database';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis/nest';
import type { AuthConfig } from '../config';
import { toSessionUser } from '../users/users.service';
import { hashSessionId, isSessionId, newSessionId } from './session-id';

export interface NewSession {
  id: string;
  expiresAt: Date;
}

interface SessionRow {
  id: string;
  full_name: string;
  picture: string;
  expires_at: Date;
}

/** Server-side sessions: the cookie holds a random id, the database its hash and expiry. */
@Injectable()
export class SessionsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(SERVICE_CONFIG) private readonly config: AuthConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.purgeExpired(), this.config.SESSION_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async create(userId: string): Promise<NewSession> {
    const id = newSessionId();
    const expiresAt = new Date(Date.now() + this.config.SESSION_TTL_DAYS * DAY_MS);
    await this.db().query(
      'INSERT INTO auth.sessions (id_hash, user_id, expires_at) VALUES ($1, $2, $3)',
      [hashSessionId(id), userId, expiresAt],
    );
    return { id, expiresAt };
  }

  /** The live session with this id, or null: forged ids never reach the database. */
  async current(id: unknown): Promise<CurrentSession | null> {
    if (!isSessionId(id)) return null;
    const rows: SessionRow[] = await this.db().query(
      `SELECT u.id, u.full_name, u.picture, s.expires_at
       FROM auth.sessions s JOIN auth.users u ON u.id = s.user_id
       WHERE s.id_hash = $1 AND s.expires_at > now()`,
      [hashSessionId(id)],
    );
    const row = rows[0];
    return row ? { user: toSessionUser(row), expiresAt: row.expires_at.getTime() } : null;
  }

  async end(id: unknown): Promise<void> {
    if (!isSessionId(id)) return;
    await this.db().query('DELETE FROM auth.sessions WHERE id_hash = $1', [hashSessionId(id)]);
  }

  async purgeExpired(): Promise<void> {
    if (!this.database.isConnected) return;
    try {
      // For a DELETE, TypeORM answers [rows, affected count].
      const [, count] = await this.database.dataSource.query<[unknown, number]>(
        'DELETE FROM auth.sessions WHERE expires_at <= now()',
      );
      if (count > 0) this.logger.info({ purged: count }, 'expired sessions purged');
    } catch (error) {
      this.logger.warn({ err: String(error) }, 'expired sessions not purged; will retry');
    }
  }

  private db(): DataSource {
    if (!this.database.isConnected) throw new ServiceUnavailableException('Database unavailable');
    return this.database.dataSource;
  }
}
