import { anonymizeIp } from './ip-address';

describe('anonymizeIp', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0'],
    ['10.0.0.1', '10.0.0.0'],
    ['::ffff:198.51.100.23', '::ffff:198.51.100.0'],
    ['::FFFF:198.51.100.23', '::ffff:198.51.100.0'],
  ])('masks the last IPv4 octet of %s', (ip, masked) => {
    expect(anonymizeIp(ip)).toBe(masked);
  });

  it.each([
    ['2001:db8:abcd:12:34:56:78:9a', '2001:db8:abcd::'],
    ['2001:0DB8:ABCD:0012::1', '2001:db8:abcd::'],
    ['2001:db8::1', '2001:db8::'],
    ['fe80::1%eth0', 'fe80::'],
    ['::1', '::'],
    ['64:ff9b::192.0.2.33', '64:ff9b::'],
    ['2001:db8:1:2:3:4:1.2.3.4', '2001:db8:1::'],
  ])('keeps only the first 48 bits of IPv6 %s', (ip, masked) => {
    expect(anonymizeIp(ip)).toBe(masked);
  });

  it('stores no trace of what is not an address', () => {
    expect(anonymizeIp('not an ip')).toBe('unknown');
    expect(anonymizeIp('999.1.1.1')).toBe('unknown');
  });
});
