import {
  decodeLink,
  encodeLink,
  GONE,
  GONE_VALUE,
  redirectTarget,
  RefusedEntry,
} from './link-cache';

describe('link cache values', () => {
  it('round-trips a link, keeping every character of the URL', () => {
    const link = { url: 'https://example.com/a|b?q=1&r=ü#frag', expiresAt: 1_800_000_000_000 };
    expect(decodeLink(encodeLink(link))).toEqual(link);
  });

  it('reads the gone marker as a deleted link', () => {
    expect(decodeLink(GONE_VALUE)).toBe(GONE);
  });

  it.each([null, '', 'no-separator', '|https://x', 'abc|https://x', '123|'])(
    'treats %p as unknown',
    (value) => {
      expect(decodeLink(value)).toBeNull();
    },
  );

  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'https://example.com/\r\nSet-Cookie: a=b',
    'https://example.com/\u0000',
    'not a url',
    '/relative',
  ])('refuses a link to %p, whoever wrote it', (url) => {
    expect(decodeLink(`1800000000000|${url}`)).toBeInstanceOf(RefusedEntry);
  });
});

describe('redirectTarget', () => {
  it('gives the serialised form of an http(s) URL', () => {
    expect(redirectTarget('https://例え.jp/パス?q=1')).toEqual({
      ok: true,
      location: 'https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9?q=1',
    });
    expect(redirectTarget('HTTP://Example.com')).toEqual({
      ok: true,
      location: 'http://example.com/',
    });
  });

  it('says why it refuses the rest', () => {
    expect(redirectTarget('javascript:alert(1)')).toEqual({
      ok: false,
      reason: 'scheme javascript: is not http or https',
    });
    expect(redirectTarget('https://a.example/\n')).toEqual({
      ok: false,
      reason: 'control characters',
    });
  });
});
