import {
  Inject,
  Injectable,
  NotFoundException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { DOMAIN_MESSAGES, verificationRecord, type Domain } from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { connected } from '../links/link-rows';
import { DOMAIN_COLUMNS, toDomain, type DomainRow } from './domain-rows';
import { DomainsService } from './domains.service';
import { TxtLookup } from './txt-lookup';

/** Marks one of the owner's domains verified once its TXT record holds its token. */
@Injectable()
export class VerifyDomainService {
  constructor(
    @Inject(ManagedDataSource) private readonly database: ManagedDataSource,
    @Inject(DomainsService) private readonly domains: DomainsService,
    @Inject(TxtLookup) private readonly dns: TxtLookup,
  ) {}

  /** 404 for none of the owner's; 422 saying what the DNS lacks. A verified one stays so. */
  async verify(ownerId: string, rawHost: string): Promise<Domain> {
    const row = await this.domains.ownedOr404(ownerId, rawHost);
    if (row.verified_at !== null) return toDomain(row);
    const { name, value } = verificationRecord(row.host, row.token);
    const answer = await this.dns.txt(name);
    if (!answer.found) {
      throw new UnprocessableEntityException(
        answer.reason === 'missing'
          ? DOMAIN_MESSAGES.recordMissing(name, value)
          : DOMAIN_MESSAGES.lookupFailed(name),
      );
    }
    if (!answer.records.some((record) => record.trim() === value)) {
      throw new UnprocessableEntityException(DOMAIN_MESSAGES.recordDifferent(name, value));
    }
    const rows = await connected(this.database).query<DomainRow[]>(
      // In a WITH, so the answer is the rows (TypeORM answers a bare UPDATE with a count too).
      `WITH verified AS (
         UPDATE links.domains SET verified_at = coalesce(verified_at, now())
         WHERE host = $1 AND owner_id = $2 AND deleted_at IS NULL
         RETURNING ${DOMAIN_COLUMNS}
       )
       SELECT * FROM verified`,
      [row.host, ownerId],
    );
    // None when it was deleted while the DNS was asked: as unknown as it is now.
    if (!rows[0]) throw new NotFoundException(DOMAIN_MESSAGES.notFound);
    return toDomain(rows[0]);
  }
}
