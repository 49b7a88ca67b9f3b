import { addressKey } from './client-address';

describe('addressKey', () => {
  it('counts every address of one IPv6 /64 as one client', () => {
    const keys = ['2001:db8:1:2::1', '2001:DB8:1:2:aaaa:bbbb:cccc:dddd', '2001:0db8:0001:0002::'];
    expect(keys.map(addressKey)).toEqual(Array.from(keys, () => '2001:db8:1:2::/64'));
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('counts IPv4, also written as IPv4-mapped IPv6, by its address', () => {
    expect(addressKey('198.18.0.7')).toBe('198.18.0.7');
    expect(addressKey('::ffff:198.18.0.7')).toBe('198.18.0.7');
    expect(addressKey('::ffff:c612:7')).toBe('198.18.0.7');
  });

  it('keeps what is not an address as it is', () => {
    expect(addressKey('unknown')).toBe('unknown');
  });
});
