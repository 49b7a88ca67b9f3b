import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { Reader, type Response } from 'mmdb-lib';
import { UNKNOWN_COUNTRY } from '@shortener/contracts';

export { UNKNOWN_COUNTRY };

const COUNTRY_CODE = /^[A-Z]{2}$/;

/**
 * The IP-to-country database shipped with the service: geo-whois-asn-country (CC0, from the
 * @ip-location-db project, built from the regional registries' WHOIS and ASN data), read
 * from disk at start-up; nothing is fetched at run time. GEOIP_DATABASE names another
 * MaxMind-format (.mmdb) file with a `country_code` or `country.iso_code` field.
 */
export function shippedCountryDatabase(): string {
  return require.resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
}

type CountryRecord = Response & {
  country_code?: unknown;
  country?: { iso_code?: unknown };
};

/** Looks visitors' addresses up in the database, about a microsecond each. */
export class CountryLookup {
  private readonly reader: Reader<CountryRecord>;

  constructor(file: string = shippedCountryDatabase()) {
    this.reader = new Reader<CountryRecord>(readFileSync(file));
  }

  /**
   * The ISO 3166-1 alpha-2 code of the address's country; `ZZ` for an address no country
   * holds (loopback, private, link-local, documentation and other reserved ranges), one the
   * database lacks, and what is not an address.
   */
  country(address: string): string {
    let record: CountryRecord | null;
    try {
      // Throws for what is not an address (one parse, where asking isValid first made two).
      const parsed = ipaddr.process(address); // IPv4-mapped IPv6 as the IPv4 address it is
      if (parsed.range() !== 'unicast') return UNKNOWN_COUNTRY;
      record = this.reader.get(parsed.toString());
    } catch {
      return UNKNOWN_COUNTRY;
    }
    const code = record?.country_code ?? record?.country?.iso_code;
    return typeof code === 'string' && COUNTRY_CODE.test(code) ? code : UNKNOWN_COUNTRY;
  }
}
