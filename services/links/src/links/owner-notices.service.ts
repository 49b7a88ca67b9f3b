import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { internalApi } from '@shortener/contracts';
import { InternalClient, type PeriodicOptions } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { PeriodicProvider, SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { LinksConfig } from '../config';

/**
 * Owners told per call: 36 of the longest (a 50-character code, a 64-character owner, a
 * 253-character domain: about 405 bytes each) fit analytics' request body limit
 * (DEFAULT_BODY_LIMIT, 16 KB); a backlog past it was refused (413) round after round, none told.
 */
export const OWNER_NOTICES_BATCH = 36;

/**
 * The outbox's next batch after `$2` (a drain's last code; '' first), each with its link's
 * owner and domain. The batch is taken first, then its links looked up one by one: joined
 * whole, PostgreSQL may merge the outbox with every link (their primary key's order) and read
 * all the links whose codes sort before the first notice's, millions in a large table, for
 * 36 rows. Past the last code, so the entries a drain deleted (dead until a vacuum) are not
 * read again by each next batch.
 */
export const OWNER_NOTICES_NEXT = `SELECT n.code, l.owner_id, l.domain
  FROM (SELECT code FROM links.owner_notices WHERE code > $2 ORDER BY code LIMIT $1) n
  LEFT JOIN links.links l USING (code)
  ORDER BY n.code`;

/**
 * Tells analytics who owns each new link, and its branded domain (the owner_notices outbox
 * triggers fill as a link is made or moves to a domain or back), so it counts the link's
 * visits in its owner's account, those stored before included, and filters them by domain.
 * What analytics does not take stays for the next round.
 */
@Injectable()
export class OwnerNoticesService extends PeriodicProvider {
  private readonly analytics: InternalClient;
  private failures = 0;

  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(SERVICE_CONFIG) private readonly config: LinksConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
    this.analytics = new InternalClient(
      'analytics',
      config.ANALYTICS_URL,
      config.INTERNAL_API_SECRET,
    );
  }

  protected periodicJob(): PeriodicOptions {
    return {
      name: 'owner-notices',
      everyMs: this.config.OWNER_NOTICES_INTERVAL_MS,
      run: () => this.tell(),
      logger: this.logger,
    };
  }

  /** Empties the outbox a batch at a time; answers how many owners were told. */
  async tell(): Promise<number> {
    if (!this.database.isConnected) return 0;
    let told = 0;
    let after = '';
    for (;;) {
      const rows: { code: string; owner_id: string | null; domain: string | null }[] =
        await this.database.dataSource.query(OWNER_NOTICES_NEXT, [OWNER_NOTICES_BATCH, after]);
      if (rows.length === 0) return told;
      const owners = rows.flatMap((row) =>
        row.owner_id === null
          ? []
          : [{ urlID: row.code, ownerId: row.owner_id, domain: row.domain }],
      );
      try {
        if (owners.length > 0) {
          const answer = await this.analytics.call(internalApi.registerLinkOwners, {
            body: { owners },
          });
          if (answer.status !== 204) throw new Error(answer.body.message);
        }
        this.failures = 0;
      } catch (error) {
        // The codes stay in the outbox; said once a minute or so while analytics is away.
        if (this.failures++ % 60 === 0) {
          this.logger.warn({ err: String(error), count: owners.length }, 'owners not told yet');
        }
        return told;
      }
      await this.database.dataSource.query(
        'DELETE FROM links.owner_notices WHERE code = ANY($1::varchar[])',
        [rows.map((row) => row.code)],
      );
      told += owners.length;
      if (rows.length < OWNER_NOTICES_BATCH) return told;
      after = rows[rows.length - 1]!.code;
    }
  }
}
