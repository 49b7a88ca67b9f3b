import { hostname } from 'node:os';
import { brandedHostOf, hostNameOf } from './branded-host';

describe('hostNameOf', () => {
  it.each([
    ['Go.Example.TEST:8080', 'go.example.test'],
    ['go.example.test.', 'go.example.test'],
    ['[::1]:8080', '[::1]'],
    ['localhost', 'localhost'],
    [undefined, ''],
  ])('reads %s as %s', (header, name) => expect(hostNameOf(header)).toBe(name));
});

describe('brandedHostOf: the hosts every edge and the redirect take for a branded domain', () => {
  const brandedHost = brandedHostOf(['short.example.com:8443', 'sho.rt', 'Links.Example.org:8080']);

  it.each([
    ['go.example.test', 'go.example.test'],
    ['GO.Example.Test:8080', 'go.example.test'],
    ['links.acme.co.uk', 'links.acme.co.uk'],
    ['go.example.test.', 'go.example.test'],
    ['xn--r8jz45g.jp', 'xn--r8jz45g.jp'],
  ])('takes %s for the branded domain %s', (header, name) =>
    expect(brandedHost(header)).toBe(name),
  );

  it.each([
    // The product's own hosts, with or without a port, in any case.
    'short.example.com',
    'SHORT.example.com:8080',
    'sho.rt',
    'links.example.org',
    hostname(),
    // What no domain can be: loopback names, addresses, one label, none at all.
    'localhost:8080',
    'app.localhost',
    '127.0.0.1:8080',
    '10.1.2.3',
    '[::1]:8080',
    '[2001:db8::1]',
    'gateway',
    '',
    undefined,
  ])('answers %s as its own', (header) => expect(brandedHost(header)).toBeUndefined());

  it('answers alike when asked again about another host (the last answer is kept)', () => {
    expect(brandedHost('go.example.test')).toBe('go.example.test');
    expect(brandedHost('short.example.com')).toBeUndefined();
    expect(brandedHost('go.example.test')).toBe('go.example.test');
  });
});
