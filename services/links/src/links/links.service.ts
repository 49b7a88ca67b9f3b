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
  LINKS_PAGE_SIZE,
  MESSAGES,
  parseExpiryDays,
  type InternalLink,
  type LinkList,
  type ResolvedLink,
} from '@shortener/contracts';
import type { CallerIdentity } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { LinksConfig } from '../config';
import { encodeLinkCursor, type LinkCursor, type LinkOrder } from './link-cursor';
import { LINK_CACHE, type LinkCache } from './link-cache.provider';
import { OwnHostsService } from './own-hosts.service';
import { RemovalsService } from './removals.service';
import { retireRemoved } from './retired-codes';
import { generateShortCode } from './short-code';
import { checkTargetUrl, type CachedLink } from '@shortener/link-cache';

interface LinkRow {
  code: string;
  original_url: string;
  created_at: Date;
  expires_at: Date;
}

/** A row as it is written to the link cache: with its version (a bigint: text from pg). */
interface VersionedRow extends LinkRow {
  version: string | number;
}

/** The cache entry of a row read with its version. */
function cachedLink(row: VersionedRow): CachedLink & { version: number } {
  return {
    url: row.original_url,
    expiresAt: row.expires_at.getTime(),
    version: Number(row.version),
  };
}

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

function toInternal(row: LinkRow): InternalLink {
  return {
    urlID: row.code,
    originalUrl: row.original_url,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.getTime(),
  };
}

/** Links: the system of record for every short link, written through to the link cache. */
@Injectable()
export class LinksService {
  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(LINK_CACHE) private readonly cache: LinkCache,
    @Inject(RemovalsService) private readonly removals: RemovalsService,
    @Inject(OwnHostsService) private readonly own: OwnHostsService,
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
   * Stores a link under `code` unless the code is taken in any letter case (the unique index
   * on lower(code) decides between two callers racing for it) or was a removed link's within
   * DELETED_CODE_KEPT_DAYS: that link's visits, tombstone and cached "gone" marker must not
   * become another's. Undefined when it is not stored.
   *
   * An alias is stored in a transaction that looks again once its row is in: a removal of
   * the same code that committed while the insert waited for the old row is not in the
   * insert's snapshot, and would otherwise let the alias take a code retired that instant.
   * (A generated code is random: such a coincidence is left to the retry.)
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
   * A page of the owner's live links, newest first or soonest to expire first, after the
   * cursor when there is one and containing `search` (destination or code, any letter case)
   * when it is not empty; with how many links the listing holds in all. Keyset paging: a link
   * created meanwhile sorts before a newest-first cursor, and every order ends ties by code,
   * so the pages after a cursor neither repeat nor skip any. The owner's links are read in
   * order through links_owner_created_idx (links_owner_expires_idx for the expiring order); a
   * search filters them as they come (no text index: one user's links are few enough to read,
   * and PGlite, the embedded mode, has no pg_trgm by default).
   */
  async listOwned(
    ownerId: string,
    order: LinkOrder,
    after: LinkCursor | null,
    search: string | undefined,
  ): Promise<LinkList> {
    const values: unknown[] = [ownerId];
    const where = ['owner_id = $1', 'expires_at > now()', 'deleted_at IS NULL'];
    if (search) {
      values.push(search);
      // Both sides lower-cased by PostgreSQL, so that they fold letters the same way.
      const needle = `lower($${values.length})`;
      where.push(
        `(strpos(lower(original_url), ${needle}) > 0 OR strpos(lower(code), ${needle}) > 0)`,
      );
    }
    const counted = this.db().query<{ total: number }[]>(
      `SELECT count(*)::int AS total FROM links.links WHERE ${where.join(' AND ')}`,
      values,
    );
    const column = order === 'expiring' ? 'expires_at' : 'created_at';
    const pageValues = [...values, LINKS_PAGE_SIZE + 1];
    const pageWhere = [...where];
    if (after) {
      pageValues.push(after.micros.toString(), after.code);
      const [micros, code] = [pageValues.length - 1, pageValues.length];
      pageWhere.push(
        `(${column}, code) ${order === 'expiring' ? '>' : '<'} ` +
          `(timestamptz 'epoch' + $${micros}::bigint * interval '1 microsecond', $${code})`,
      );
    }
    const direction = order === 'expiring' ? 'ASC' : 'DESC';
    // One row more than a page tells whether another follows.
    const listed = this.db().query<(LinkRow & { micros: string })[]>(
      `SELECT code, original_url, created_at, expires_at,
              (extract(epoch FROM ${column}) * 1000000)::bigint AS micros
       FROM links.links
       WHERE ${pageWhere.join(' AND ')}
       ORDER BY ${column} ${direction}, code ${direction}
       LIMIT $${values.length + 1}`,
      pageValues,
    );
    const [rows, [count]] = await Promise.all([listed, counted]);
    const page = rows.slice(0, LINKS_PAGE_SIZE);
    const last = page[page.length - 1];
    return {
      links: page.map(toInternal),
      nextCursor:
        rows.length > LINKS_PAGE_SIZE && last
          ? encodeLinkCursor({ order, micros: BigInt(last.micros), code: last.code })
          : null,
      total: count?.total ?? 0,
    };
  }

  /** Every live code of the owner, containing `search` when it is not empty; in no order. */
  async codesOwned(ownerId: string, search: string | undefined): Promise<string[]> {
    const values: unknown[] = [ownerId];
    let matching = '';
    if (search) {
      values.push(search);
      matching = `AND (strpos(lower(original_url), lower($2)) > 0 OR strpos(lower(code), lower($2)) > 0)`;
    }
    const rows = await this.db().query<{ code: string }[]>(
      `SELECT code FROM links.links
       WHERE owner_id = $1 AND expires_at > now() AND deleted_at IS NULL ${matching}`,
      values,
    );
    return rows.map((row) => row.code);
  }

  /** The owner's live links among `codes`, in no order: others' and the rest are left out. */
  async findOwned(ownerId: string, codes: string[]): Promise<InternalLink[]> {
    if (codes.length === 0) return [];
    const rows = await this.db().query<LinkRow[]>(
      `SELECT code, original_url, created_at, expires_at FROM links.links
       WHERE owner_id = $1 AND code = ANY($2::varchar[])
         AND expires_at > now() AND deleted_at IS NULL`,
      [ownerId, codes],
    );
    return rows.map(toInternal);
  }

  async getOwned(ownerId: string, code: string): Promise<InternalLink | null> {
    if (!isShortCode(code)) return null;
    const rows: LinkRow[] = await this.db().query(
      `SELECT code, original_url, created_at, expires_at FROM links.links
       WHERE code = $1 AND owner_id = $2 AND expires_at > now() AND deleted_at IS NULL`,
      [code, ownerId],
    );
    return rows[0] ? toInternal(rows[0]) : null;
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
    if (!row) return this.getOwned(ownerId, code);
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
    if (!this.database.isConnected) throw new ServiceUnavailableException('Database unavailable');
    return this.database.dataSource;
  }
}
