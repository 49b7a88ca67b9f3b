import { checkTargetUrl, isLoopbackHost } from './target-url';

describe('checkTargetUrl', () => {
  const own = ['localhost:8080', 'sho.rt'];

  it.each([
    'https://example.com',
    'http://example.com/a/b?c=d#e',
    'https://例え.jp/パス',
    'https://example.com:8443/x',
  ])('accepts %s as given', (url) => {
    expect(checkTargetUrl(url, own)).toEqual({ ok: true, url });
  });

  it.each([
    ['javascript:alert(1)', 'Only http and https'],
    ['data:text/plain,hi', 'Only http and https'],
    ['file:///etc/passwd', 'Only http and https'],
    ['ftp://example.com', 'Only http and https'],
    ['example.com', 'not a valid absolute URL'],
    ['https://user:pw@example.com', 'user name or password'],
    ['https://user@example.com', 'user name or password'],
    ['http://localhost:8080/r/abcdefg', 'cannot be shortened again'],
    ['https://SHO.RT/r/abcdefg', 'cannot be shortened again'],
    ['http://sho.rt./r/abcdefg', 'cannot be shortened again'],
    ['http://sho.rt%2e/r/abcdefg', 'cannot be shortened again'],
    ['http://localhost.:8080/r/x', 'cannot be shortened again'],
    ['https://example.com/a b', 'spaces or control characters'],
    ['https://example.com/\r\nX: y', 'spaces or control characters'],
    [`https://example.com/${'x'.repeat(2100)}`, 'longer than 2048'],
    ['', 'required'],
    [undefined, 'required'],
    [['https://a.example', 'https://b.example'], 'one URL only'],
  ])('refuses %p', (url, message) => {
    const result = checkTargetUrl(url, own);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.message).toContain(message);
    // What the web page accepts (SPEC section 5: any absolute URL) is refused with a
    // message it shows; only what it never sends is malformed.
    const pageSends = typeof url === 'string' && URL.canParse(url.trim());
    expect(result.ok ? '' : result.reason).toBe(pageSends ? 'refused' : 'malformed');
  });
});

describe('checkTargetUrl: no short links of this service, however spelled', () => {
  const own = ['sho.rt', '203.0.113.5:8080'];

  it.each([
    'http://localhost/',
    'http://localhost:3000/anything',
    'http://LOCALHOST./r/abcdefg',
    'http://%6c%6fcalhost/r/abcdefg',
    'http://app.localhost:8080/r/abcdefg',
    'http://localhost.localdomain/r/abcdefg',
    'http://127.0.0.1/r/abcdefg',
    'http://127.1:8080/r/abcdefg',
    'http://127.0.0.1./r/abcdefg',
    'http://0x7f000001/r/abcdefg',
    'http://0x7f.0.0.1/r/abcdefg',
    'http://0177.0.0.1/r/abcdefg',
    'http://2130706433/r/abcdefg',
    'http://１２７.0.0.1/r/abcdefg',
    'http://127.255.255.254/',
    'http://0/r/abcdefg',
    'http://0.0.0.0:8080/r/abcdefg',
    'http://[::1]/r/abcdefg',
    'http://[0:0:0:0:0:0:0:1]:8080/r/abcdefg',
    'http://[::]/r/abcdefg',
    'http://[::ffff:127.0.0.1]/r/abcdefg',
    'http://[::ffff:7f00:1]/r/abcdefg',
    'http://[::127.0.0.1]/r/abcdefg',
    'http://[::ffff:0.0.0.0]/r/abcdefg',
    'https://sho.rt:8443/r/abcdefg',
    'http://203.0.113.5/r/abcdefg',
    'http://3405803781:8080/r/abcdefg',
    'http://[::ffff:203.0.113.5]:8080/r/abcdefg',
    'http://0xcb.0.113.5/r/abcdefg',
    // Names that spell a loopback or own address (public wildcard DNS answers with it).
    'https://127.0.0.1.example.com/',
    'http://127.0.0.1.nip.io/r/abcdefg',
    'http://app.127-0-0-1.sslip.io:8080/r/abcdefg',
    'http://7f000001.nip.io/r/abcdefg',
    'http://--1.sslip.io/r/abcdefg',
    'http://0--1.sslip.io/r/abcdefg',
    'http://203.0.113.5.nip.io:8080/r/abcdefg',
    // IPv4 inside IPv6: NAT64 (well-known and local-use prefixes) and 6to4.
    'http://[64:ff9b::127.0.0.1]/r/abcdefg',
    'http://[64:ff9b::7f00:1]/r/abcdefg',
    'http://[64:ff9b:1::7f00:1]/r/abcdefg',
    'http://[2002:7f00:1::1]/r/abcdefg',
    'http://[64:ff9b::203.0.113.5]/r/abcdefg',
  ])('refuses %s', (url) => {
    expect(checkTargetUrl(url, own)).toEqual({
      ok: false,
      reason: 'refused',
      message: 'Short links of this service cannot be shortened again.',
    });
  });

  it.each([
    'http://128.0.0.1/',
    'http://126.255.255.255/',
    'http://1.0.0.0/',
    'https://localhost.example.com/',
    'https://notlocalhost/',
    'https://8.8.8.8.nip.io/',
    'https://release-1-2-3-4.example.com/',
    'https://deadbeef.example.com/',
    'http://[64:ff9b::8.8.8.8]/',
    'http://[2002:808:808::1]/',
    'http://[::1:2:3]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[2001:db8::1]/',
    'https://203.0.113.6:8080/',
    'https://sho.rt.example/r/abcdefg',
  ])('accepts %s', (url) => {
    expect(checkTargetUrl(url, own)).toEqual({ ok: true, url });
  });
});

describe('isLoopbackHost', () => {
  it('reads bracketed IPv6 in every notation ipaddr.js parses', () => {
    for (const host of ['[0:0:0:0:0:0:0:1]', '[::0:1]', '[0::]', '[::7f00:1]', '[::ffff:7f00:1]']) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of ['[1:2:3:4:5:6:7:8]', '[fe80::1]', '[::1:0:0:1]', '[1::2::3]', '[x::1]']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it('knows the loopback and unspecified hosts as a URL parser writes them', () => {
    for (const host of ['localhost', 'a.localhost', '127.0.0.53', '0.0.0.0', '[::1]', '[::]']) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of ['example.com', '10.0.0.1', '[2001:db8::1]', '[::ffff:a00:1]']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });
});
