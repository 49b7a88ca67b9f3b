import {
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
  DOMAIN_HOST_MAX,
  isShortCode,
  MESSAGES,
  parseExpiryDays,
  type CreateLinkRequest,
  type InternalLink,
  type ResolvedLink,
} from '@shortener/contracts';
import type { CallerIdentity } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { LinksConfig } from '../config';
import { LINK_CACHE, type LinkCache } from './link-cache.provider';
import { chosenSlug, ownVerifiedDomain, slugTaken, targetUrl } from './link-placement';
import { readRules, type RulesChange } from './link-rules-input';
import {
  cachedLink,
  cacheKeyOf,
  connected,
  toInternal,
  VERSIONED_COLUMNS,
  type VersionedRow,
} from './link-rows';
import { OwnHostsService } from './own-hosts.service';
import { RemovalsService } from './removals.service';
import { retireRemoved } from './retired-codes';
import { generateShortCode } from './short-code';

const CODE_ATTEMPTS = 5;

/**
 * See LinksService.insert: $1 code, $2 URL, $3 owner, $4 created, $5 expires, $6 days kept,
 * $7 domain, $8 slug, $9..$13 the rules' columns.
 */
const INSERT_LINK = `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at,
    domain, slug, ios_url, android_url, geo_urls, password_hash, max_visits)
  SELECT $1::varchar, $2, $3, $4, $5,
    $7::varchar, $8::varchar, $9::text, $10::text, $11::jsonb, $12::varchar, $13::int
  WHERE NOT EXISTS (
      SELECT 1 FROM links.retired_codes
      WHERE lower(code) = lower($1::varchar) AND retired_at > now() - make_interval(days => $6)
    )
    AND NOT EXISTS (
      SELECT 1 FROM links.links WHERE case_twin AND lower(code) = lower($1::varchar)
    )
  ON CONFLICT DO NOTHING
  RETURNING ${VERSIONED_COLUMNS}`;

/** Where a new link lives: the main origin (host null), or a domain and its back-half. */
interface Placement {
  host: string | null;
  /** The chosen back-half; null for a generated one. */
  slug: string | null;
}

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
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    @Inject(SERVICE_CONFIG) private readonly config: LinksConfig,
  ) {}

  async create(caller: CallerIdentity, body: CreateLinkRequest): Promise<InternalLink> {
    const url = targetUrl(body.url, this.own.hosts);
    const days = parseExpiryDays(body.days);
    if (caller.userId === null && days > ANONYMOUS_MAX_EXPIRY_DAYS) {
      throw new ForbiddenException(MESSAGES.loginForExpiry);
    }
    let placement: Placement = { host: null, slug: null };
    let alias: string | null;
    if (body.domain === undefined || body.domain === null || body.domain === '') {
      alias = this.chosenAlias(caller, body.alias);
    } else {
      placement = {
        host: await ownVerifiedDomain(this.db(), caller.userId, body.domain),
        slug: chosenSlug(body.alias),
      };
      alias = null;
    }
    const rules = await readRules(body, this.own.hosts);
    const createdAt = new Date();
    const expiresAt = new Date(createdAt.getTime() + days * DAY_MS);
    for (let attempt = 0; attempt < (alias === null ? CODE_ATTEMPTS : 1); attempt += 1) {
      const slug = placement.host === null ? null : (placement.slug ?? generateShortCode());
      const row = await this.insert(
        alias ?? generateShortCode(),
        url,
        caller,
        { createdAt, expiresAt },
        { host: placement.host, slug, rules },
        alias !== null,
      );
      if (row) {
        await this.cache.set(cacheKeyOf(row), cachedLink(row)).catch((error: unknown) =>
          // The redirect falls back to this service on a cache miss, so this is not fatal.
          this.logger.warn({ err: String(error), code: row.code }, 'link not cached'),
        );
        return toInternal(row);
      }
      if (placement.host !== null && placement.slug !== null) {
        if (await slugTaken(this.db(), placement.host, placement.slug)) {
          throw new ConflictException(ALIAS_MESSAGES.taken);
        }
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
    where: { host: string | null; slug: string | null; rules: RulesChange },
    chosen: boolean,
  ): Promise<VersionedRow | undefined> {
    const { rules } = where;
    const params = [
      code,
      url,
      caller.userId,
      when.createdAt,
      when.expiresAt,
      DELETED_CODE_KEPT_DAYS,
      where.host,
      where.slug,
      rules.ios_url ?? null,
      rules.android_url ?? null,
      rules.geo_urls ? JSON.stringify(rules.geo_urls) : null,
      rules.password_hash ?? null,
      rules.max_visits ?? null,
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
   * Marks the link deleted (it stops redirecting at once) and queues its purge, with its
   * visits, for after the undo window. Someone else's link answers exactly like an unknown
   * one: false. Its expiry moves to now (the real one kept for a restore), so code that knows
   * no `deleted_at`, the previous release's during a rolling update, takes it for expired.
   */
  async deleteOwned(ownerId: string, code: string): Promise<boolean> {
    if (!isShortCode(code)) return false;
    const rows: { code: string; version: string; domain: string | null; slug: string | null }[] =
      await this.db().query(
        `WITH gone AS (
         UPDATE links.links
           SET deleted_at = now(),
               expires_at_before_delete = expires_at,
               expires_at = least(expires_at, now())
         WHERE code = $1 AND owner_id = $2 AND deleted_at IS NULL AND expires_at > now()
         RETURNING code, version, domain, slug
       )
       ${retireRemoved('now() + make_interval(secs => $3::double precision / 1000)')}`,
        [code, ownerId, this.config.DELETE_UNDO_WINDOW_MS],
      );
    const [row] = rows;
    if (row === undefined) return false;
    await this.removals.stopRedirects([
      { code, version: Number(row.version), key: cacheKeyOf(row) },
    ]);
    return true;
  }

  /**
   * For the redirect service after a cache miss: the live link, cached again. With `host`,
   * `code` is a back-half on that branded domain (served only while the domain is its owner's,
   * verified and not deleted); without, a main-origin code (a domain link's code is not one).
   */
  async resolve(code: string, host?: string): Promise<ResolvedLink | null> {
    if (!isShortCode(code)) return null;
    if (host !== undefined && (host === '' || host.length > DOMAIN_HOST_MAX)) return null;
    const rows: VersionedRow[] = await this.db().query(
      host === undefined
        ? `SELECT ${VERSIONED_COLUMNS} FROM links.links
           WHERE code = $1 AND domain IS NULL AND expires_at > now() AND deleted_at IS NULL`
        : `SELECT ${VERSIONED_COLUMNS} FROM links.links
           WHERE domain = $2 AND lower(slug) = lower($1) AND slug = $1
             AND expires_at > now() AND deleted_at IS NULL`,
      host === undefined ? [code] : [code, host.toLowerCase()],
    );
    const row = rows[0];
    if (!row?.served) return null;
    const link = cachedLink(row);
    const key = cacheKeyOf(row);
    await this.cache
      .refill(key, link)
      .catch((error: unknown) => this.logger.warn({ err: String(error), key }, 'refill failed'));
    return link;
  }

  private db(): DataSource {
    return connected(this.database);
  }
}
