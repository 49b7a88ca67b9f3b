import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import {
  ALIAS_MESSAGES,
  ANONYMOUS_MAX_EXPIRY_DAYS,
  checkAlias,
  DAY_MS,
  DELETED_CODE_KEPT_DAYS,
  EDIT_LINK_MESSAGES,
  EXPIRY_DAYS,
  isShortCode,
  MESSAGES,
  parseExpiryDays,
  type InternalLink,
  type ResolvedLink,
} from '@shortener/contracts';
import type { CallerIdentity } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { LinksConfig } from '../config';
import { LINK_CACHE, type LinkCache } from './link-cache.provider';
import { cachedLink, connected, toInternal, type VersionedRow } from './link-rows';
import { OwnedLinksService } from './owned-links.service';
import { OwnHostsService } from './own-hosts.service';
import { RemovalsService } from './removals.service';
import { retireRemoved } from './retired-codes';
import { generateShortCode } from './short-code';
import { checkTargetUrl } from '@shortener/link-cache';

const CODE_ATTEMPTS = 5;

/** See LinksService.insert: $1 code, $2 URL, $3 owner, $4 created, $5 expires, $6 days kept. */
const INSERT_LINK = `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at)
  SELECT $1::varchar, $2, $3, $4, $5
  WHERE NOT EXISTS (
      SELECT 1 FROM links.retired_codes
      WHERE lower(code) = lower($1::varchar) AND retired_at > now() - make_interval(days => $6)
    )
    AND NOT EXISTS (
      SELECT 1 FROM links.links WHERE case_twin AND lower(code) = lower($1::varchar)
    )
  ON CONFLICT DO NOTHING
  RETURNING code, original_url, created_at, expires_at, version`;

/** Rolls back an alias whose code was retired while it was being stored. */
class RetiredMeanwhile extends Error {}

/** Links: the system of record for every short link, written through to the link cache. */
@Injectable()
export class LinksService {
  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(LINK_CACHE) private readonly cache: LinkCache,
    @Inject(RemovalsService) private readonly removals: RemovalsService,
    @Inject(OwnHostsService) private readonly own: OwnHostsService,
    @Inject(OwnedLinksService) private readonly owned: OwnedLinksService,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    @Inject(SERVICE_CONFIG) private readonly config: LinksConfig,
  ) {}

  /** Shorten's rules for a destination, for a new link and an edited one alike. */
  private targetUrl(rawUrl: unknown): string {
    const target = checkTargetUrl(rawUrl, this.own.hosts);
    if (!target.ok) {
      // A rule applied to a URL the web page accepts is a 403: the page shows its message.
      throw target.reason === 'refused'
        ? new ForbiddenException(target.message)
        : new BadRequestException(target.message);
    }
    return target.url;
  }

  async create(
    caller: CallerIdentity,
    rawUrl: unknown,
    rawDays: unknown,
    rawAlias?: unknown,
  ): Promise<InternalLink> {
    const url = this.targetUrl(rawUrl);
    const days = parseExpiryDays(rawDays);
    if (caller.userId === null && days > ANONYMOUS_MAX_EXPIRY_DAYS) {
      throw new ForbiddenException(MESSAGES.loginForExpiry);
    }
    const alias = this.chosenAlias(caller, rawAlias);
    const createdAt = new Date();
    const expiresAt = new Date(createdAt.getTime() + days * DAY_MS);
    for (let attempt = 0; attempt < (alias === null ? CODE_ATTEMPTS : 1); attempt += 1) {
      const row = await this.insert(
        alias ?? generateShortCode(),
        url,
        caller,
        { createdAt, expiresAt },
        alias !== null,
      );
      if (row) {
        await this.cache.set(row.code, cachedLink(row)).catch((error: unknown) =>
          // The redirect falls back to this service on a cache miss, so this is not fatal.
          this.logger.warn({ err: String(error), code: row.code }, 'link not cached'),
        );
        return toInternal(row);
      }
    }
    if (alias !== null) throw await this.aliasConflict(alias);
    throw new ServiceUnavailableException('Could not allocate a short code, try again');
  }

  /** The alias asked for, checked for its form; null when none is asked for. */
  private chosenAlias(caller: CallerIdentity, raw: unknown): string | null {
    if (raw === undefined || raw === null || raw === '') return null;
    if (caller.userId === null) throw new ForbiddenException(ALIAS_MESSAGES.loginRequired);
    const check = checkAlias(raw);
    if (!check.ok) throw new ForbiddenException(check.message);
    return check.alias;
  }

  /**
   * Stores a link under `code` unless taken in any case or retired (a removed link's visits
   * must not become another's); undefined if not stored. An alias looks again once inserted,
   * as a removal committed meanwhile is outside the insert's snapshot.
   */
  private async insert(
    code: string,
    url: string,
    caller: CallerIdentity,
    when: { createdAt: Date; expiresAt: Date },
    chosen: boolean,
  ): Promise<VersionedRow | undefined> {
    const params = [
      code,
      url,
      caller.userId,
      when.createdAt,
      when.expiresAt,
      DELETED_CODE_KEPT_DAYS,
    ];
    if (!chosen) return (await this.db().query<VersionedRow[]>(INSERT_LINK, params))[0];
    try {
      return await this.db().transaction(async (manager) => {
        const row = (await manager.query<VersionedRow[]>(INSERT_LINK, params))[0];
        if (row && (await this.retired(manager, code))) throw new RetiredMeanwhile();
        return row;
      });
    } catch (error) {
      if (error instanceof RetiredMeanwhile) return undefined;
      throw error;
    }
  }

  private async retired(db: Pick<DataSource, 'query'>, code: string): Promise<boolean> {
    const rows: unknown[] = await db.query(
      `SELECT 1 FROM links.retired_codes
       WHERE lower(code) = lower($1::varchar) AND retired_at > now() - make_interval(days => $2)`,
      [code, DELETED_CODE_KEPT_DAYS],
    );
    return rows.length > 0;
  }

  /** Why an alias was not stored: a removed link's code, or taken. */
  private async aliasConflict(alias: string): Promise<ConflictException> {
    return new ConflictException(
      (await this.retired(this.db(), alias))
        ? ALIAS_MESSAGES.recentlyDeleted
        : ALIAS_MESSAGES.taken,
    );
  }

  /**
   * A new destination, a new expiry counted from now, or both, on one of the owner's live
   * links; then every redirect instance drops its copy (the cache's broadcast). Someone
   * else's, a deleted or an expired link answers null, like an unknown one.
   */
  async updateOwned(
    ownerId: string,
    code: string,
    change: { url?: unknown; days?: number },
  ): Promise<InternalLink | null> {
    if (!isShortCode(code)) return null;
    const url = change.url === undefined ? null : this.targetUrl(change.url);
    const days = change.days === undefined ? null : change.days;
    if (days !== null && !(EXPIRY_DAYS as readonly number[]).includes(days)) {
      throw new BadRequestException(EDIT_LINK_MESSAGES.days);
    }
    const rows: VersionedRow[] = await this.db().query(
      // In a WITH, so the answer is the rows (TypeORM answers a bare UPDATE with a count too).
      `WITH changed AS (
         UPDATE links.links
         SET original_url = coalesce($3, original_url),
             expires_at = coalesce(now() + make_interval(days => $4), expires_at)
         WHERE code = $1 AND owner_id = $2 AND expires_at > now() AND deleted_at IS NULL
         RETURNING code, original_url, created_at, expires_at, version
       )
       SELECT * FROM changed`,
      [code, ownerId, url, days],
    );
    const row = rows[0];
    if (!row) return null;
    await this.replaceCached(row);
    return toInternal(row);
  }

  /**
   * Undoes a delete within the window: the removal leaves the outbox (its visits are never
   * deleted) and the link is live again, in the cache over its gone marker. A live link of
   * the owner answers as it is; past the window, or someone else's, null.
   */
  async restoreOwned(ownerId: string, code: string): Promise<InternalLink | null> {
    if (!isShortCode(code)) return null;
    const rows: VersionedRow[] = await this.db().query(
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
         RETURNING code, original_url, created_at, expires_at, version
       )
       SELECT * FROM restored`,
      [code, ownerId],
    );
    const row = rows[0];
    if (!row) return this.owned.getOwned(ownerId, code);
    await this.replaceCached(row);
    return toInternal(row);
  }

  /**
   * Every redirect instance must follow a change within a second, so a cache that cannot be
   * told fails the call (the change stays made: repeating it is harmless).
   */
  private async replaceCached(row: VersionedRow): Promise<void> {
    try {
      await this.cache.replace(row.code, cachedLink(row));
    } catch (error) {
      this.logger.warn({ err: String(error), code: row.code }, 'cache not told of change');
      throw new ServiceUnavailableException('Link cache unavailable, try again');
    }
  }

  /**
   * Marks the link deleted (it stops redirecting at once) and queues its purge, with its
   * visits, for after the undo window. Someone else's link answers exactly like an unknown
   * one: false. Its expiry moves to now (the real one kept for a restore), so code that knows
   * no `deleted_at`, the previous release's during a rolling update, takes it for expired.
   */
  async deleteOwned(ownerId: string, code: string): Promise<boolean> {
    if (!isShortCode(code)) return false;
    const rows: { code: string; version: string }[] = await this.db().query(
      `WITH gone AS (
         UPDATE links.links
           SET deleted_at = now(),
               expires_at_before_delete = expires_at,
               expires_at = least(expires_at, now())
         WHERE code = $1 AND owner_id = $2 AND deleted_at IS NULL AND expires_at > now()
         RETURNING code, version
       )
       ${retireRemoved('now() + make_interval(secs => $3::double precision / 1000)')}`,
      [code, ownerId, this.config.DELETE_UNDO_WINDOW_MS],
    );
    const [row] = rows;
    if (row === undefined) return false;
    await this.removals.stopRedirects([{ code, version: Number(row.version) }]);
    return true;
  }

  /** For the redirect service after a cache miss: the live link, cached again. */
  async resolve(code: string): Promise<ResolvedLink | null> {
    if (!isShortCode(code)) return null;
    const rows: VersionedRow[] = await this.db().query(
      `SELECT code, original_url, created_at, expires_at, version FROM links.links
       WHERE code = $1 AND expires_at > now() AND deleted_at IS NULL`,
      [code],
    );
    const row = rows[0];
    if (!row) return null;
    const link = cachedLink(row);
    await this.cache
      .refill(code, link)
      .catch((error: unknown) => this.logger.warn({ err: String(error), code }, 'refill failed'));
    return link;
  }

  private db(): DataSource {
    return connected(this.database);
  }
}
