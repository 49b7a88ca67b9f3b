import { ConflictException, Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import {
  API_KEY_MESSAGES,
  API_KEYS_PER_USER,
  apiKeyLabel,
  type ApiKey,
  type ApiKeyCaller,
  type ApiKeyScope,
  type CreateApiKeyRequest,
  type CreatedApiKey,
} from '@shortener/contracts';
import type { PeriodicOptions } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { PeriodicProvider, SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { AuthConfig } from '../config';
import { toSessionUser } from '../users/users.service';
import { hashApiKey, isApiKey, newApiKey } from './api-key-secret';

interface KeyRow {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  created_at: Date;
  last_used_at: Date | null;
}

interface CallerRow {
  key_id: string;
  scopes: ApiKeyScope[];
  id: string;
  full_name: string;
  picture: string;
}

/**
 * How often a key's last use is written: a lookup within this of the last write only reads.
 * The gateway remembers a resolved key (API_KEY_CACHE_MS), so a busy key costs at most one
 * lookup per gateway instance that often, and one UPDATE a minute whatever the instances.
 */
const TOUCH_EVERY = '1 minute';

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    label: apiKeyLabel(row.id),
    name: row.name,
    scopes: row.scopes,
    createdAt: row.created_at.getTime(),
    ...(row.last_used_at ? { lastUsedAt: row.last_used_at.getTime() } : {}),
  };
}

/**
 * API keys: made, listed and revoked by their owner; looked up by the gateway. A user holds
 * at most API_KEYS_PER_USER live keys, and a revoked key's row is deleted once it has been
 * revoked for API_KEY_REVOKED_RETENTION_DAYS, so the table stays bounded.
 */
@Injectable()
export class ApiKeysService extends PeriodicProvider {
  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(SERVICE_CONFIG) private readonly config: AuthConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected periodicJob(): PeriodicOptions {
    return {
      name: 'revoked API keys purge',
      everyMs: this.config.API_KEY_PURGE_INTERVAL_MS,
      run: () => this.purgeRevoked(),
      logger: this.logger,
    };
  }

  async create(userId: string, request: CreateApiKeyRequest): Promise<CreatedApiKey> {
    const { id, key } = newApiKey();
    // The user's row locked first, then counted and inserted in a statement of its own: in
    // READ COMMITTED that statement sees what a request holding the lock before committed, so
    // two requests at once cannot both take the last place. (Counted in the locking statement,
    // it would read from before the wait.)
    const rows = await this.db().transaction(async (manager) => {
      await manager.query('SELECT 1 FROM auth.users WHERE id = $1 FOR UPDATE', [userId]);
      return manager.query<KeyRow[]>(
        `INSERT INTO auth.api_keys (id, secret_hash, user_id, name, scopes)
         SELECT $2, $3, $1, $4, $5
         WHERE (SELECT count(*) FROM auth.api_keys
                WHERE user_id = $1 AND revoked_at IS NULL) < $6
         RETURNING id, name, scopes, created_at, last_used_at`,
        [userId, id, hashApiKey(key), request.name, request.scopes, API_KEYS_PER_USER],
      );
    });
    const row = rows[0];
    if (!row) throw new ConflictException(API_KEY_MESSAGES.tooMany);
    return { ...toApiKey(row), key };
  }

  async list(userId: string): Promise<ApiKey[]> {
    const rows: KeyRow[] = await this.db().query(
      `SELECT id, name, scopes, created_at, last_used_at FROM auth.api_keys
       WHERE user_id = $1 AND revoked_at IS NULL
       ORDER BY created_at DESC, id`,
      [userId],
    );
    return rows.map(toApiKey);
  }

  /** False when the key is unknown, revoked already, or someone else's. */
  async revoke(userId: string, id: string): Promise<boolean> {
    const [, count] = await this.db().query<[unknown, number]>(
      `UPDATE auth.api_keys SET revoked_at = now()
       WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
      [id, userId],
    );
    return count > 0;
  }

  /** Who a live key speaks for; null for anything else (malformed ones never reach the database). */
  async lookUp(key: unknown): Promise<ApiKeyCaller | null> {
    if (!isApiKey(key)) return null;
    // The read, and the write of the last use when it is older than TOUCH_EVERY, in one
    // round trip (a data-modifying WITH runs whether or not the SELECT reads from it).
    const rows: CallerRow[] = await this.db().query(
      `WITH live AS (
         SELECT id, user_id, scopes,
                last_used_at IS NULL OR last_used_at < now() - interval '${TOUCH_EVERY}' AS stale
         FROM auth.api_keys
         WHERE secret_hash = $1 AND revoked_at IS NULL
       ), touched AS (
         UPDATE auth.api_keys k SET last_used_at = now()
         FROM live WHERE k.id = live.id AND live.stale
       )
       SELECT live.id AS key_id, live.scopes, u.id, u.full_name, u.picture
       FROM live JOIN auth.users u ON u.id = live.user_id`,
      [hashApiKey(key)],
    );
    const row = rows[0];
    return row ? { user: toSessionUser(row), keyId: row.key_id, scopes: row.scopes } : null;
  }

  async purgeRevoked(): Promise<void> {
    if (!this.database.isConnected) return;
    // For a DELETE, TypeORM answers [rows, affected count].
    const [, count] = await this.database.dataSource.query<[unknown, number]>(
      `DELETE FROM auth.api_keys
       WHERE revoked_at <= now() - make_interval(days => $1)`,
      [this.config.API_KEY_REVOKED_RETENTION_DAYS],
    );
    if (count > 0)
      this.logger.info({ purged: count }, 'revoked API keys past their retention purged');
  }

  private db(): DataSource {
    if (!this.database.isConnected) throw new ServiceUnavailableException('Database unavailable');
    return this.database.dataSource;
  }
}
