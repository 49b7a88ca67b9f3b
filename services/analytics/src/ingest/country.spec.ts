import { CountryLookup, UNKNOWN_COUNTRY } from './country';

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
});
