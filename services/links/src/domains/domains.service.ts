import { randomBytes } from 'node:crypto';
import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { DOMAIN_MESSAGES, type Domain } from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import { ownHosts, type LinksConfig } from '../config';
import { connected } from '../links/link-rows';
import { checkDomainHost, hostNames } from './domain-host';
import { DOMAIN_COLUMNS, toDomain, type DomainRow } from './domain-rows';

/** The host of a path parameter, as stored; undefined for one no domain can have. */
export function hostOfParam(raw: string): string | undefined {
  const check = checkDomainHost(raw, []);
  return check.ok ? check.host : undefined;
}

/** An owner's domains: listed, added, and one of them read. */
@Injectable()
export class DomainsService {
  private readonly ownHostNames: string[];

  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(SERVICE_CONFIG) config: LinksConfig,
  ) {
    this.ownHostNames = hostNames(ownHosts(config));
  }

  async list(ownerId: string): Promise<Domain[]> {
    const rows = await connected(this.database).query<DomainRow[]>(
      `SELECT ${DOMAIN_COLUMNS} FROM links.domains
       WHERE owner_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, host`,
      [ownerId],
    );
    return rows.map(toDomain);
  }

  /** One of the owner's live domains (not deleted), or null. */
  async getOwned(ownerId: string, host: string): Promise<DomainRow | null> {
    const rows = await connected(this.database).query<DomainRow[]>(
      `SELECT ${DOMAIN_COLUMNS} FROM links.domains
       WHERE host = $1 AND owner_id = $2 AND deleted_at IS NULL`,
      [host, ownerId],
    );
    return rows[0] ?? null;
  }

  /**
   * Adds the host for the owner with a new token, or brings back the owner's own deleted one
   * as it was (both `created`); one already theirs answers as it is. A host another owner
   * holds, deleted within its undo window too, is a 409.
   */
  async add(ownerId: string, rawHost: unknown): Promise<{ created: boolean; domain: Domain }> {
    const check = checkDomainHost(rawHost, this.ownHostNames);
    if (!check.ok) throw new BadRequestException(check.message);
    const { host } = check;
    const db = connected(this.database);
    await db.query(
      `DELETE FROM links.domains
       WHERE host = $1 AND deleted_at IS NOT NULL AND purge_after <= now()`,
      [host],
    );
    const added = await db.query<DomainRow[]>(
      `INSERT INTO links.domains (host, owner_id, token) VALUES ($1, $2, $3)
       ON CONFLICT (host) DO UPDATE SET deleted_at = NULL, purge_after = NULL
         WHERE links.domains.owner_id = excluded.owner_id
           AND links.domains.deleted_at IS NOT NULL
       RETURNING ${DOMAIN_COLUMNS}`,
      [host, ownerId, randomBytes(18).toString('base64url')],
    );
    if (added[0]) return { created: true, domain: toDomain(added[0]) };
    const own = await this.getOwned(ownerId, host);
    if (!own) throw new ConflictException(DOMAIN_MESSAGES.taken);
    return { created: false, domain: toDomain(own) };
  }

  /** The owner's live domain of a path parameter, or a 404. */
  async ownedOr404(ownerId: string, rawHost: string): Promise<DomainRow> {
    const host = hostOfParam(rawHost);
    const row = host === undefined ? null : await this.getOwned(ownerId, host);
    if (!row) throw new NotFoundException(DOMAIN_MESSAGES.notFound);
    return row;
  }
}
