import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { Reader, type Response } from 'mmdb-lib';
import { UNKNOWN_COUNTRY } from '@shortener/contracts';
import { RecentCache } from './recent-cache';

export { UNKNOWN_COUNTRY };

const COUNTRY_CODE = /^[A-Z]{2}$/;

/**
 * The IP-to-country database shipped with the service: geo-whois-asn-country (CC0, from the
 * @ip-location-db project, built from the regional registries' WHOIS and ASN data), read
 * from disk at start-up; nothing is fetched at run time. GEOIP_DATABASE names another
 * MaxMind-format (.mmdb) file with a `country_code` or `country.iso_code` field.
 */
function shippedCountryDatabase(): string {
  return require.resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
}

const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * The octets of a canonical dotted IPv4 address, as sockets report most visitors', read without
 * ipaddr.js's costly parsing; anything else answers null, for ipaddr.js.
 */
export function canonicalIPv4(address: string): number[] | null {
  if (address.length < 7 || address.length > 15) return null;
  const octets: number[] = [];
  let value = 0;
  let digits = 0;
  for (let at = 0; at <= address.length; at++) {
    const code = at === address.length ? DOT : address.charCodeAt(at);
    if (code === DOT) {
      if (digits === 0 || octets.length === 4) return null;
      octets.push(value);
      value = 0;
      digits = 0;
    } else {
      if (code < ZERO || code > NINE || (digits > 0 && value === 0)) return null;
      value = value * 10 + (code - ZERO);
      digits++;
      if (value > 255) return null;
    }
  }
  return octets.length === 4 ? octets : null;
}

type CountryRecord = Response & {
  country_code?: unknown;
  country?: { iso_code?: unknown };
};

/**
 * Looks visitors' addresses up in the database, about a microsecond each, keeping the
 * answers for the addresses seen most recently (a viral link's visitors come back).
 */
export class CountryLookup {
  private readonly reader: Reader<CountryRecord>;
  private readonly recent: RecentCache<string>;

  constructor(file: string = shippedCountryDatabase(), cachedAddresses = 10_000) {
    this.reader = new Reader<CountryRecord>(readFileSync(file));
    this.recent = new RecentCache(cachedAddresses, (address) => this.lookUp(address));
  }

  /**
   * The ISO 3166-1 alpha-2 code of the address's country; `ZZ` for an address no country
   * holds (loopback, private, link-local, documentation and other reserved ranges), one the
   * database lacks, and what is not an address.
   */
  country(address: string): string {
    return this.recent.get(address);
  }

  private lookUp(address: string): string {
    let record: CountryRecord | null;
    try {
      const octets = canonicalIPv4(address);
      // Throws for what is not an address (one parse, where asking isValid first made two).
      // IPv4-mapped IPv6 as the IPv4 address it is.
      const parsed = octets ? new ipaddr.IPv4(octets) : ipaddr.process(address);
      if (parsed.range() !== 'unicast') return UNKNOWN_COUNTRY;
      record = this.reader.get(octets ? address : parsed.toString());
    } catch {
      return UNKNOWN_COUNTRY;
    }
    const code = record?.country_code ?? record?.country?.iso_code;
    return typeof code === 'string' && COUNTRY_CODE.test(code) ? code : UNKNOWN_COUNTRY;
  }
}
