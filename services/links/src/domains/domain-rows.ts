import { verificationRecord, type Domain } from '@shortener/contracts';

/** links.domains as the links service reads it. */
export interface DomainRow {
  host: string;
  token: string;
  verified_at: Date | null;
}

export const DOMAIN_COLUMNS = 'host, token, verified_at';

export function toDomain(row: DomainRow): Domain {
  return {
    host: row.host,
    verified: row.verified_at !== null,
    verification: verificationRecord(row.host, row.token),
  };
}
