import { OwnHosts } from './own-hosts';

describe('OwnHosts', () => {
  const hosts = new OwnHosts('https://sho.rt:8443', ['s.example.com', 'Links.Example.org:8080']);

  it('takes PUBLIC_ORIGIN and SHORT_LINK_HOSTS, in any case and with any port, as ours', () => {
    for (const header of ['sho.rt', 'SHO.RT:8443', 's.example.com:80', 'links.example.org']) {
      expect(hosts.brandedHost(header)).toBeUndefined();
    }
  });

  it('takes loopback names, IP literals and single labels as ours, never as a domain', () => {
    for (const header of [
      undefined,
      '',
      'localhost:7004',
      'app.localhost',
      '127.0.0.1:7004',
      '10.0.3.4',
      '[::1]:7004',
      '[2001:db8::1]',
      'redirect:7004',
    ]) {
      expect(hosts.brandedHost(header)).toBeUndefined();
    }
  });

  it('names any other host, lower-cased, without its port or trailing dot', () => {
    expect(hosts.brandedHost('Go.Acme.com')).toBe('go.acme.com');
    expect(hosts.brandedHost('go.acme.com:8080')).toBe('go.acme.com');
    expect(hosts.brandedHost('go.acme.com.')).toBe('go.acme.com');
    expect(hosts.brandedHost('xn--r8jz45g.jp')).toBe('xn--r8jz45g.jp');
  });
});
