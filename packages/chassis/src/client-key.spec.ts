import { clientKey, LOOPBACK_CLIENT, parseAddress } from './client-key';

describe('clientKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.18.0.7', '198.18.0.7'],
    ['::ffff:c612:7', '198.18.0.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:fffe', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['2001:db8::1', '2001:db8::/64'],
    ['::1', LOOPBACK_CLIENT],
    ['127.0.0.1', LOOPBACK_CLIENT],
    ['127.0.0.2', LOOPBACK_CLIENT],
    ['127.255.255.254', LOOPBACK_CLIENT],
    ['::ffff:127.0.0.3', LOOPBACK_CLIENT],
    ['0:0:0:0:0:0:0:1', LOOPBACK_CLIENT],
    ['128.0.0.1', '128.0.0.1'],
    ['126.255.255.255', '126.255.255.255'],
    ['::2', '::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b::/64'],
    ['2001:db8:1:2:3:4:192.0.2.1', '2001:db8:1:2::/64'],
    ['unknown', 'unknown'],
  ])('keys %s as %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });

  it('counts every loopback address as one client: every program on this machine is one', () => {
    const keys = ['127.0.0.1', '127.0.0.2', '127.1.2.3', '::1', '::ffff:127.9.9.9'];
    expect(new Set(keys.map(clientKey)).size).toBe(1);
  });

  it('counts every address of one IPv6 /64 as one client', () => {
    const keys = ['2001:db8:1:2::1', '2001:db8:1:2:ffff::9', '2001:db8:1:2:a:b:c:d'];
    expect(new Set(keys.map(clientKey))).toEqual(new Set(['2001:db8:1:2::/64']));
  });
});

describe('parseAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:0DB8::1', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['64:ff9b::192.0.2.1', '64:ff9b::c000:201'],
    ['::ffff:198.51.100.23', '::ffff:c633:6417'],
  ])('reads %s', (address, parsed) => {
    expect(parseAddress(address)?.toString()).toBe(parsed);
  });

  it.each(['unknown', '', '999.1.1.1', '3232235777', '0x7f.0.0.1', '10.1', '1::2::3'])(
    'reads %p as no address (node:net decides what is one)',
    (text) => {
      expect(parseAddress(text)).toBeNull();
    },
  );
});
