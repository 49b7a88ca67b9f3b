import {
  BadRequestException,
  ForbiddenException,
  Inject,
  Injectable,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import {
  ANONYMOUS_MAX_EXPIRY_DAYS,
  DAY_MS,
  isShortCode,
  MESSAGES,
  parseExpiryDays,
  type InternalLink,
  type ResolvedLink,
} from '@shortener/contracts';
import type { CallerIdentity } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { SERVICE_LOGGER } from '@shortener/chassis-nest';
import { LINK_CACHE, type LinkCache } from './link-cache.provider';
import { OwnHostsService } from './own-hosts.service';
import { RemovalsService } from './removals.service';
import { generateShortCode } from './short-code';
import { checkTargetUrl } from './target-url';

interface LinkRow {
  code: string;
  original_url: string;
  created_at: Date;
  expires_at: Date;
}

const CODE_ATTEMPTS = 5;

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
  ) {}

  async create(caller: CallerIdentity, rawUrl: unknown, rawDays: unknown): Promise<InternalLink> {
    const target = checkTargetUrl(rawUrl, this.own.hosts);
    if (!target.ok) {
      // A rule applied to a URL the web page accepts is a 403: the page shows its message.
      throw target.reason === 'refused'
        ? new ForbiddenException(target.message)
        : new BadRequestException(target.message);
    }
    const days = parseExpiryDays(rawDays);
    if (caller.userId === null && days > ANONYMOUS_MAX_EXPIRY_DAYS) {
      throw new ForbiddenException(MESSAGES.loginForExpiry);
    }
    const createdAt = new Date();
    const expiresAt = new Date(createdAt.getTime() + days * DAY_MS);
    const db = this.db();
    for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt += 1) {
      const rows: LinkRow[] = await db.query(
        `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (code) DO NOTHING
         RETURNING code, original_url, created_at, expires_at`,
        [generateShortCode(), target.url, caller.userId, createdAt, expiresAt],
      );
      const row = rows[0];
      if (row) {
        await this.cache
          .set(row.code, { url: row.original_url, expiresAt: row.expires_at.getTime() })
          .catch((error: unknown) =>
            // The redirect falls back to this service on a cache miss, so this is not fatal.
            this.logger.warn({ err: String(error), code: row.code }, 'link not cached'),
          );
        return toInternal(row);
      }
    }
    throw new ServiceUnavailableException('Could not allocate a short code, try again');
  }

  async listOwned(ownerId: string): Promise<InternalLink[]> {
    const rows: LinkRow[] = await this.db().query(
      `SELECT code, original_url, created_at, expires_at FROM links.links
       WHERE owner_id = $1 AND expires_at > now()
       ORDER BY created_at DESC, code`,
      [ownerId],
    );
    return rows.map(toInternal);
  }

  async getOwned(ownerId: string, code: string): Promise<InternalLink | null> {
    if (!isShortCode(code)) return null;
    const rows: LinkRow[] = await this.db().query(
      `SELECT code, original_url, created_at, expires_at FROM links.links
       WHERE code = $1 AND owner_id = $2 AND expires_at > now()`,
      [code, ownerId],
    );
    return rows[0] ? toInternal(rows[0]) : null;
  }

  /** Someone else's link answers exactly like an unknown one: false. */
  async deleteOwned(ownerId: string, code: string): Promise<boolean> {
    if (!isShortCode(code)) return false;
    const rows: { code: string }[] = await this.db().query(
      `WITH gone AS (
         DELETE FROM links.links WHERE code = $1 AND owner_id = $2 RETURNING code
       )
       INSERT INTO links.removed_links (code, removed_at)
       SELECT code, now() FROM gone
       ON CONFLICT (code) DO UPDATE SET removed_at = EXCLUDED.removed_at
       RETURNING code`,
      [code, ownerId],
    );
    if (rows.length === 0) return false;
    await this.removals.settle([code]);
    return true;
  }

  /** For the redirect service after a cache miss: the live link, cached again. */
  async resolve(code: string): Promise<ResolvedLink | null> {
    if (!isShortCode(code)) return null;
    const rows: LinkRow[] = await this.db().query(
      `SELECT code, original_url, created_at, expires_at FROM links.links
       WHERE code = $1 AND expires_at > now()`,
      [code],
    );
    const row = rows[0];
    if (!row) return null;
    const link = { url: row.original_url, expiresAt: row.expires_at.getTime() };
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
