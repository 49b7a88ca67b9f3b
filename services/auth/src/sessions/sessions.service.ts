import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { DAY_MS, type CurrentSession } from '@shortener/contracts';
import type { PeriodicOptions } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { PeriodicProvider, SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { AuthConfig } from '../config';
import { toSessionUser } from '../users/users.service';
import { hashSessionId, isSessionId, newSessionId } from './session-id';

interface NewSession {
  id: string;
  expiresAt: Date;
}

interface SessionRow {
  id: string;
  full_name: string;
  picture: string;
  ends_at: Date;
}

/**
 * How often a session's last-seen time is written: a lookup within this of the last write
 * only reads, so a busy session costs one UPDATE a minute, not one per request.
 */
const TOUCH_EVERY = '1 minute';

/**
 * Server-side sessions: the cookie holds a random id, the database its hash, its absolute
 * expiry (SESSION_TTL_DAYS after sign-in) and when it was last used; a session not used for
 * SESSION_IDLE_DAYS ends too.
 */
@Injectable()
export class SessionsService extends PeriodicProvider {
  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(SERVICE_CONFIG) private readonly config: AuthConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected periodicJob(): PeriodicOptions {
    return {
      name: 'sessions purge',
      everyMs: this.config.SESSION_PURGE_INTERVAL_MS,
      run: () => this.purgeExpired(),
      logger: this.logger,
    };
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

  /**
   * The live session with this id, or null: forged ids never reach the database. Using a
   * session slides its idle timeout; `expiresAt` is when it ends if not used again.
   */
  async current(id: unknown): Promise<CurrentSession | null> {
    if (!isSessionId(id)) return null;
    // One round trip: the read, and the write of the last-seen time when it is older than
    // TOUCH_EVERY (a data-modifying WITH runs whether or not the SELECT reads from it).
    const rows: SessionRow[] = await this.db().query(
      `WITH live AS (
         SELECT id_hash, user_id, expires_at, last_seen_at,
                last_seen_at < now() - interval '${TOUCH_EVERY}' AS stale
         FROM auth.sessions
         WHERE id_hash = $1 AND expires_at > now()
           AND last_seen_at > now() - make_interval(days => $2)
       ), touched AS (
         UPDATE auth.sessions s SET last_seen_at = now()
         FROM live WHERE s.id_hash = live.id_hash AND live.stale
       )
       SELECT u.id, u.full_name, u.picture,
              least(live.expires_at,
                    CASE WHEN live.stale THEN now() ELSE live.last_seen_at END
                      + make_interval(days => $2)) AS ends_at
       FROM live JOIN auth.users u ON u.id = live.user_id`,
      [hashSessionId(id), this.config.SESSION_IDLE_DAYS],
    );
    const row = rows[0];
    return row ? { user: toSessionUser(row), expiresAt: row.ends_at.getTime() } : null;
  }

  /** Ends the sessions with these ids (the cookies a browser presented); others are ignored. */
  async end(...ids: unknown[]): Promise<void> {
    const hashes = ids.filter(isSessionId).map(hashSessionId);
    if (hashes.length === 0) return;
    await this.db().query('DELETE FROM auth.sessions WHERE id_hash = ANY($1)', [hashes]);
  }

  async purgeExpired(): Promise<void> {
    if (!this.database.isConnected) return;
    // For a DELETE, TypeORM answers [rows, affected count].
    const [, count] = await this.database.dataSource.query<[unknown, number]>(
      `DELETE FROM auth.sessions
       WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(days => $1)`,
      [this.config.SESSION_IDLE_DAYS],
    );
    if (count > 0) this.logger.info({ purged: count }, 'expired and idle sessions purged');
  }

  private db(): DataSource {
    if (!this.database.isConnected) throw new ServiceUnavailableException('Database unavailable');
    return this.database.dataSource;
  }
}
