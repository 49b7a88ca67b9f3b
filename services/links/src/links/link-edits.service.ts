import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { Logger } from 'pino';
import {
  ALIAS_MESSAGES,
  EDIT_LINK_MESSAGES,
  EXPIRY_DAYS,
  isShortCode,
  type InternalLink,
  type UpdateLinkRequest,
} from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { SERVICE_LOGGER } from '@shortener/chassis-nest';
import { LINK_CACHE, type LinkCache } from './link-cache.provider';
import { isUniqueViolation, ownVerifiedDomain, targetUrl } from './link-placement';
import { readRules } from './link-rules-input';
import {
  cachedLink,
  cacheKeyOf,
  connected,
  toInternal,
  VERSIONED_COLUMNS,
  type LinkRow,
  type VersionedRow,
} from './link-rows';
import { OwnedLinksService } from './owned-links.service';
import { OwnHostsService } from './own-hosts.service';

/** An owner's live link, locked for a change. */
const LOCK_OWNED = `SELECT code, domain, slug FROM links.links
  WHERE code = $1 AND owner_id = $2 AND expires_at > now() AND deleted_at IS NULL
  FOR UPDATE`;

/** Edits and restores of an owner's links, each followed by every redirect within a second. */
@Injectable()
export class LinkEditsService {
  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(LINK_CACHE) private readonly cache: LinkCache,
    @Inject(OwnHostsService) private readonly own: OwnHostsService,
    @Inject(OwnedLinksService) private readonly owned: OwnedLinksService,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * A new destination, a new expiry counted from now, another domain (null: the main
   * origin) or rules (null clears one), on one of the owner's live links; every part checked
   * before anything is written. Moved to a domain, a link keeps its back-half (its code when
   * it has none). Someone else's, a deleted or an expired link answers null, like an unknown one.
   */
  async updateOwned(
    ownerId: string,
    code: string,
    change: UpdateLinkRequest,
  ): Promise<InternalLink | null> {
    if (!isShortCode(code)) return null;
    const url = change.url === undefined ? null : targetUrl(change.url, this.own.hosts);
    const days = change.days === undefined ? null : change.days;
    if (days !== null && !(EXPIRY_DAYS as readonly number[]).includes(days)) {
      throw new BadRequestException(EDIT_LINK_MESSAGES.days);
    }
    const db = connected(this.database);
    const movesTo =
      change.domain === undefined || change.domain === null
        ? change.domain
        : await ownVerifiedDomain(db, ownerId, change.domain);
    const rules = await readRules(change, this.own.hosts);
    const sets = [
      'original_url = coalesce($3, original_url)',
      'expires_at = coalesce(now() + make_interval(days => $4), expires_at)',
    ];
    const values: unknown[] = [code, ownerId, url, days];
    for (const [column, value] of Object.entries(rules)) {
      values.push(column === 'geo_urls' && value !== null ? JSON.stringify(value) : value);
      sets.push(`${column} = $${values.length}${column === 'geo_urls' ? '::jsonb' : ''}`);
    }
    let before: Pick<LinkRow, 'code' | 'domain' | 'slug'> | undefined;
    let row: VersionedRow | undefined;
    try {
      row = await db.transaction(async (manager) => {
        [before] = await manager.query<LinkRow[]>(LOCK_OWNED, [code, ownerId]);
        if (!before) return undefined;
        if (movesTo === null) sets.push('domain = NULL', 'slug = NULL');
        if (typeof movesTo === 'string' && movesTo !== before.domain) {
          values.push(movesTo, before.slug ?? before.code);
          sets.push(`domain = $${values.length - 1}`, `slug = $${values.length}`);
        }
        const rows = await manager.query<VersionedRow[]>(
          // In a WITH, so the answer is the rows (TypeORM answers a bare UPDATE with a count too).
          `WITH changed AS (
             UPDATE links.links SET ${sets.join(', ')}
             WHERE code = $1 AND owner_id = $2
             RETURNING ${VERSIONED_COLUMNS}
           )
           SELECT * FROM changed`,
          values,
        );
        return rows[0];
      });
    } catch (error) {
      // The back-half it takes on the domain is another link's there.
      if (isUniqueViolation(error)) throw new ConflictException(ALIAS_MESSAGES.taken);
      throw error;
    }
    if (!row || !before) return null;
    await this.publish(row, cacheKeyOf(before));
    return toInternal(row);
  }

  /**
   * Undoes a delete within the window: the removal leaves the outbox (its visits are never
   * deleted) and the link is live again, in the cache over its gone marker. A live link of
   * the owner answers as it is; past the window, or someone else's, null.
   */
  async restoreOwned(ownerId: string, code: string): Promise<InternalLink | null> {
    if (!isShortCode(code)) return null;
    const rows: VersionedRow[] = await connected(this.database).query(
      `WITH undone AS (
         DELETE FROM links.removed_links r
         USING links.links l
         WHERE r.code = $1 AND l.code = $1 AND l.owner_id = $2
           AND l.deleted_at IS NOT NULL AND r.purge_after > now()
           AND coalesce(l.expires_at_before_delete, l.expires_at) > now()
         RETURNING r.code
       ),
       restored AS (
         UPDATE links.links
           SET deleted_at = NULL,
               expires_at = coalesce(expires_at_before_delete, expires_at),
               expires_at_before_delete = NULL
         WHERE code IN (SELECT code FROM undone)
         RETURNING ${VERSIONED_COLUMNS}
       )
       SELECT * FROM restored`,
      [code, ownerId],
    );
    const row = rows[0];
    if (!row) return this.owned.getOwned(ownerId, code);
    await this.publish(row, cacheKeyOf(row));
    return toInternal(row);
  }

  /**
   * Every redirect instance must follow a change within a second, so a cache that cannot be
   * told fails the call (the change stays made: repeating it is harmless). A link that moved
   * leaves a gone marker under its former key; one on a domain that does not serve (deleted
   * meanwhile) is marked gone rather than written.
   */
  private async publish(row: VersionedRow, formerKey: string): Promise<void> {
    const key = cacheKeyOf(row);
    const version = Number(row.version);
    try {
      if (formerKey !== key) await this.cache.delete(formerKey, version);
      if (row.served === false) await this.cache.delete(key, version);
      else await this.cache.replace(key, cachedLink(row));
    } catch (error) {
      this.logger.warn({ err: String(error), code: row.code }, 'cache not told of change');
      throw new ServiceUnavailableException('Link cache unavailable, try again');
    }
  }
}
