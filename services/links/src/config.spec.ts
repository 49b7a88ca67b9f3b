import { ConfigError } from '@shortener/chassis';
import { loadLinksConfig } from './config';

const SECRET = { INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' };

describe('DNS_SERVERS', () => {
  it("is empty unless given: the system's servers", () => {
    expect(loadLinksConfig(SECRET).DNS_SERVERS).toEqual([]);
  });

  it('takes comma-separated addresses, each with a port or not', () => {
    const DNS_SERVERS = '127.0.0.1:5353, 8.8.8.8,2001:db8::1,[2001:db8::2]:53';
    expect(loadLinksConfig({ ...SECRET, DNS_SERVERS }).DNS_SERVERS).toEqual([
      '127.0.0.1:5353',
      '8.8.8.8',
      '2001:db8::1',
      '[2001:db8::2]:53',
    ]);
  });

  it.each(['dns.example:53', '127.0.0.1:0', '127.0.0.1:70000', '2001:db8::1:53x', '[8.8.8.8]:53'])(
    'refuses %s at start-up',
    (DNS_SERVERS) => {
      expect(() => loadLinksConfig({ ...SECRET, DNS_SERVERS })).toThrow(ConfigError);
      expect(() => loadLinksConfig({ ...SECRET, DNS_SERVERS })).toThrow(/DNS_SERVERS/);
    },
  );
});
