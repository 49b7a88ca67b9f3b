import { Resolver } from 'node:dns/promises';
import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import type { LinksConfig } from '../config';

/** What the DNS says of a TXT name: its records (each one's strings joined), or why none. */
export type TxtAnswer =
  { found: true; records: string[] } | { found: false; reason: 'missing' | 'failed' };

/** Codes c-ares gives for a name that exists with no TXT record, or does not exist. */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND']);

/** Asks DNS_SERVERS (the system's servers when none are set) for TXT records. */
@Injectable()
export class TxtLookup {
  private readonly resolver = new Resolver({ timeout: 2000, tries: 2 });

  constructor(@Inject(SERVICE_CONFIG) config: LinksConfig) {
    if (config.DNS_SERVERS.length > 0) this.resolver.setServers(config.DNS_SERVERS);
  }

  async txt(name: string): Promise<TxtAnswer> {
    try {
      const records = await this.resolver.resolveTxt(name);
      return { found: true, records: records.map((strings) => strings.join('')) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      return { found: false, reason: NO_RECORD.has(code) ? 'missing' : 'failed' };
    }
  }
}
