import { compileTrustedProxies } from './trusted-proxies';

describe('compileTrustedProxies', () => {
  it('trusts nobody for an empty list', () => {
    const trust = compileTrustedProxies([]);
    expect(['127.0.0.1', '::1', '10.0.0.1'].map((address) => trust(address, 0))).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('reads addresses, CIDR ranges and the names Express knows', () => {
    const trust = compileTrustedProxies([
      'loopback',
      'uniquelocal',
      '203.0.113.0/24',
      '2001:db8::1',
    ]);
    const trusted = (address: string): boolean => trust(address, 0);
    expect(trusted('127.0.0.1')).toBe(true);
    expect(trusted('127.8.9.10')).toBe(true);
    expect(trusted('::1')).toBe(true);
    expect(trusted('::ffff:127.0.0.1')).toBe(true);
    expect(trusted('10.20.30.40')).toBe(true);
    expect(trusted('192.168.1.1')).toBe(true);
    expect(trusted('fd00::1')).toBe(true);
    expect(trusted('203.0.113.77')).toBe(true);
    expect(trusted('2001:db8::1')).toBe(true);
    expect(trusted('2001:db8::2')).toBe(false);
    expect(trusted('198.51.100.1')).toBe(false);
    expect(trusted('not-an-ip')).toBe(false);
  });

  it('refuses an entry that is not an address, a range or a known name, naming the variable', () => {
    expect(() => compileTrustedProxies(['proxy.local'])).toThrow(
      'TRUSTED_PROXIES: invalid IP address: proxy.local',
    );
    expect(() => compileTrustedProxies(['10.0.0.0/40'])).toThrow('TRUSTED_PROXIES');
  });
});
