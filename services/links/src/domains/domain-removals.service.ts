import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { Logger } from 'pino';
import { DOMAIN_MESSAGES, type Domain } from '@shortener/contracts';
import type { PeriodicOptions } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { PeriodicProvider, SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { LinksConfig } from '../config';
import { BrandedLinksService } from '../links/branded-links.service';
import { connected } from '../links/link-rows';
import { retireRemoved } from '../links/retired-codes';
import { DOMAIN_COLUMNS, toDomain, type DomainRow } from './domain-rows';
import { DomainsService, hostOfParam } from './domains.service';

/**
 * A domain's delete, undone within DELETE_UNDO_WINDOW_MS as a link's is; past the window the
 * row goes (each REMOVALS_INTERVAL_MS), and the host is free for anyone to add. Each round
 * also tells the link cache of a delete or restore it could not be told of at the time.
 */
@Injectable()
export class DomainRemovalsService extends PeriodicProvider {
  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(DomainsService) private readonly domains: DomainsService,
    @Inject(BrandedLinksService) private readonly links: BrandedLinksService,
    @Inject(SERVICE_CONFIG) private readonly config: LinksConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected periodicJob(): PeriodicOptions {
    return {
      name: 'domain purge',
      everyMs: this.config.REMOVALS_INTERVAL_MS,
      run: async () => {
        await this.purgeDue();
        if (this.database.isConnected) await this.links.tellUntold();
      },
      logger: this.logger,
    };
  }

  /** Marks one of the owner's live domains deleted; 404 for none. */
  async delete(ownerId: string, rawHost: string): Promise<void> {
    const rows = await this.change(
      `UPDATE links.domains
       SET deleted_at = now(),
           purge_after = now() + make_interval(secs => $3::double precision / 1000),
           cache_told = false
       WHERE host = $1 AND owner_id = $2 AND deleted_at IS NULL`,
      rawHost,
      ownerId,
      [this.config.DELETE_UNDO_WINDOW_MS],
    );
    if (rows.length === 0) throw new NotFoundException(DOMAIN_MESSAGES.notFound);
    await this.links.stop(rows[0]!.host);
  }

  /** Undoes a delete within the window; a live domain of the owner answers as it is. */
  async restore(ownerId: string, rawHost: string): Promise<Domain> {
    const rows = await this.change(
      `UPDATE links.domains SET deleted_at = NULL, purge_after = NULL, cache_told = false
       WHERE host = $1 AND owner_id = $2 AND deleted_at IS NOT NULL AND purge_after > now()`,
      rawHost,
      ownerId,
    );
    if (rows[0]) {
      await this.links.resume(rows[0].host);
      return toDomain(rows[0]);
    }
    return toDomain(await this.domains.ownedOr404(ownerId, rawHost));
  }

  /**
   * Domains deleted longer ago than the window: gone for good, and their links deleted (into
   * the removals' outbox, purged with their visits), so the host comes free with no link on it.
   */
  async purgeDue(): Promise<void> {
    if (!this.database.isConnected) return;
    await this.database.dataSource.query(
      `WITH purged AS (
         DELETE FROM links.domains WHERE deleted_at IS NOT NULL AND purge_after <= now()
         RETURNING host, owner_id
       ), gone AS (
         UPDATE links.links
           SET deleted_at = now(),
               expires_at_before_delete = expires_at,
               expires_at = least(expires_at, now())
         WHERE (domain, owner_id) IN (SELECT host, owner_id FROM purged) AND deleted_at IS NULL
         RETURNING code
       )
       ${retireRemoved('now()')}`,
    );
  }

  /** An UPDATE of the domain of a path parameter ($1) and its owner ($2): the rows changed. */
  private async change(
    update: string,
    rawHost: string,
    ownerId: string,
    more: unknown[] = [],
  ): Promise<DomainRow[]> {
    const host = hostOfParam(rawHost);
    if (host === undefined) return [];
    // In a WITH, so the answer is the rows (TypeORM answers a bare UPDATE with a count too).
    return connected(this.database).query<DomainRow[]>(
      `WITH changed AS (${update} RETURNING ${DOMAIN_COLUMNS}) SELECT * FROM changed`,
      [host, ownerId, ...more],
    );
  }
}
