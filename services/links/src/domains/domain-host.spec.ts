import { DOMAIN_MESSAGES } from '@shortener/contracts';
import { checkDomainHost, hostNames } from './domain-host';

describe('checkDomainHost', () => {
  const own = ['sho.rt', 'links.example.org'];
  const refused = (raw: unknown) => {
    const check = checkDomainHost(raw, own);
    return check.ok ? undefined : check.message;
  };

  it.each([
    ['go.acme.com', 'go.acme.com'],
    ['  Go.ACME.com  ', 'go.acme.com'],
    ['go.acme.com.', 'go.acme.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['BÜCHER.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['例え.jp', 'xn--r8jz45g.jp'],
    ['a-b.c0.example', 'a-b.c0.example'],
    [`${'a'.repeat(63)}.example`, `${'a'.repeat(63)}.example`],
  ])('takes %j as %s', (raw, host) => {
    expect(checkDomainHost(raw, own)).toEqual({ ok: true, host });
  });

  it.each([undefined, null, 42, '', '   '])('asks for a name when given %j', (raw) => {
    expect(refused(raw)).toBe(DOMAIN_MESSAGES.hostRequired);
  });

  it.each(['1.2.3.4', '127.0.0.1', '::1', '[::1]', '[2001:db8::1]', '0x7f.1', '1.2.3.4.'])(
    'refuses the IP address %s',
    (raw) => {
      expect(refused(raw)).toBe(DOMAIN_MESSAGES.ipLiteral);
    },
  );

  it.each(['example', 'localhost', 'bücher'])('refuses the single label %s', (raw) => {
    expect(refused(raw)).toBe(DOMAIN_MESSAGES.oneLabel);
  });

  it('refuses a name over 253 characters, or a label over 63', () => {
    const long = `${Array.from({ length: 50 }, () => 'abcde').join('.')}.example`;
    expect(long.length).toBeGreaterThan(253);
    expect(refused(long)).toBe(DOMAIN_MESSAGES.tooLong);
    expect(refused(`${'a'.repeat(64)}.example`)).toBe(DOMAIN_MESSAGES.tooLong);
  });

  it.each([
    'go.acme.com/path',
    'go.acme.com:8080',
    'user@go.acme.com',
    'https://go.acme.com',
    'go acme.com',
    'go..acme.com',
    '-go.acme.com',
    'go-.acme.com',
    'go_x.acme.com',
    'go.acme.com?x',
    'a.123',
  ])('refuses %j as no domain name', (raw) => {
    expect(refused(raw)).toBe(DOMAIN_MESSAGES.hostInvalid);
  });

  it("refuses this service's own hosts, in any case, and loopback names", () => {
    for (const raw of ['sho.rt', 'SHO.RT', 'links.example.org.', 'app.localhost']) {
      expect(refused(raw)).toBe(DOMAIN_MESSAGES.ownHost);
    }
    expect(checkDomainHost('go.sho.rt', own)).toEqual({ ok: true, host: 'go.sho.rt' });
  });
});

describe('hostNames', () => {
  it('reads the host names of host[:port] entries, lower case', () => {
    expect(hostNames(['Sho.rt:8080', 'links.example.org', '127.0.0.1:80', '[::1]:8080'])).toEqual([
      'sho.rt',
      'links.example.org',
      '127.0.0.1',
      '[::1]',
    ]);
  });
});
