import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { canonicalIPv4, CountryLookup, UNKNOWN_COUNTRY } from './country';

describe('CountryLookup (the shipped CC0 database)', () => {
  const lookup = new CountryLookup();

  it("answers well-known public addresses' countries, IPv4, IPv6 and IPv4-mapped", () => {
    expect(lookup.country('8.8.8.8')).toBe('US');
    expect(lookup.country('1.1.1.1')).toBe('AU');
    expect(lookup.country('193.0.14.129')).toBe('NL');
    expect(lookup.country('2001:4860:4860::8888')).toBe('US');
    expect(lookup.country('::ffff:8.8.8.8')).toBe('US');
  });

  it('answers ZZ for loopback, private, documentation and malformed addresses', () => {
    for (const address of [
      '127.0.0.1',
      '::1',
      '10.1.2.3',
      '192.168.0.7',
      '203.0.113.9',
      'fe80::1',
      'unknown',
      '',
      '1.2.3',
      '::ffff:999.1.1.1',
    ]) {
      expect(lookup.country(address)).toBe(UNKNOWN_COUNTRY);
    }
  });

  it('reads an IPv4 address in its canonical form as ipaddr.js does, and leaves every other spelling to it', () => {
    const part = fc.oneof(
      fc.integer({ min: 0, max: 300 }).map(String),
      fc.constantFrom('00', '010', '09', '0x1f', '', '-1', ' 1', '1 ', '٣'),
    );
    const spelling = fc.oneof(
      fc.array(part, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('.')),
      fc.ipV4(),
      fc.ipV4Extended(),
      fc.ipV6(),
      fc.string({ maxLength: 16 }),
    );
    let canonical = 0;
    fc.assert(
      fc.property(spelling, (address) => {
        const octets = canonicalIPv4(address);
        let parsed: ipaddr.IPv4 | ipaddr.IPv6 | undefined;
        try {
          parsed = ipaddr.process(address);
        } catch {
          parsed = undefined;
        }
        const isCanonicalIPv4 = parsed?.kind() === 'ipv4' && parsed.toString() === address;
        expect(octets !== null).toBe(isCanonicalIPv4);
        if (octets !== null) {
          canonical++;
          expect(octets).toEqual((parsed as ipaddr.IPv4).octets);
        }
      }),
      { numRuns: 20_000, seed: 16 },
    );
    expect(canonical).toBeGreaterThan(2000);
  });
});
