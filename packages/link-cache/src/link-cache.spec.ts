import { createHmac, type KeyObject } from 'node:crypto';
import {
  decodeLink,
  decodeVersioned,
  decodeVersionNotice,
  encodeGone as encodeGoneAt,
  encodeLink as encodeLinkAt,
  encodeVersionNotice,
  GONE,
  linkCacheKey,
  redirectTarget,
  RefusedEntry,
  type CachedLink,
} from './link-cache';

const LEASE = 1_900_000_000_000;
const encodeLink = (k: KeyObject, code: string, link: CachedLink): string =>
  encodeLinkAt(k, code, { version: 7, ...link }, LEASE);
const encodeGone = (k: KeyObject, code: string): string => encodeGoneAt(k, code, 8, LEASE);

const key = linkCacheKey('a-secret-of-enough-length');
const CODE = 'abc1234';
/** `body` signed for CODE as the value format says: 22 characters of HMAC-SHA-256, base64url. */
const signedBody = (body: string): string =>
  `${createHmac('sha256', key).update(`${CODE}|${body}`).digest('base64url').slice(0, 22)}|${body}`;
/** A true entry's signature in front of another body. */
const swappedBody = (body: string): string =>
  encodeLink(key, CODE, { expiresAt: 1_800_000_000_000, url: 'https://x.example/' }).slice(0, 23) +
  body;

describe('link cache values', () => {
  it('are signed with a key made once as a KeyObject (a Buffer key makes a MAC 14 µs on Node 24)', () => {
    expect(key.type).toBe('secret');
    expect(key.symmetricKeySize).toBe(32);
  });

  it('round-trips a link, keeping every character of the URL', () => {
    const link = { url: 'https://example.com/a|b?q=1&r=ü#frag', expiresAt: 1_800_000_000_000 };
    expect(decodeLink(key, CODE, encodeLink(key, CODE, link))).toEqual({ ...link, version: 7 });
  });

  it('carries the version and the lease of a link and of a gone marker', () => {
    const link = { url: 'https://example.com/a', expiresAt: 1_800_000_000_000, version: 12 };
    expect(decodeVersioned(key, CODE, encodeLinkAt(key, CODE, link, LEASE))).toEqual({
      entry: link,
      version: 12,
      leaseUntil: LEASE,
    });
    expect(decodeVersioned(key, CODE, encodeGoneAt(key, CODE, 13, LEASE))).toEqual({
      entry: GONE,
      version: 13,
      leaseUntil: LEASE,
    });
  });

  it('reads an entry of the first signed form, without a version, as unknown', () => {
    expect(decodeLink(key, CODE, signedBody('1800000000000|https://example.com/a'))).toBeNull();
    expect(decodeLink(key, CODE, signedBody('!'))).toBeNull();
  });

  it('signs the version notices of the broadcast for their code', () => {
    const notice = encodeVersionNotice(key, CODE, 1_795_000_000_123);
    expect(decodeVersionNotice([key], notice)).toEqual({ code: CODE, version: 1_795_000_000_123 });
    expect(decodeVersionNotice([key], notice.replace(CODE, 'zzz9999'))).toBeNull();
    expect(decodeVersionNotice([key], notice.replace('1795000000123', '1795000000124'))).toBeNull();
    expect(
      decodeVersionNotice([linkCacheKey('another-secret-of-enough-length')], notice),
    ).toBeNull();
    expect(decodeVersionNotice([key], CODE)).toBeNull();
  });

  it('reads the gone marker as a deleted link', () => {
    expect(decodeLink(key, CODE, encodeGone(key, CODE))).toBe(GONE);
  });

  it('reads, while the secret is rotated, entries signed with a key from either secret', () => {
    const link = { url: 'https://example.com/a', expiresAt: 1_800_000_000_000 };
    const previous = linkCacheKey('the-previous-secret-of-enough-length');
    const rotating = [key, previous];
    expect(decodeLink(rotating, CODE, encodeLink(previous, CODE, link))).toEqual({
      ...link,
      version: 7,
    });
    expect(decodeLink(rotating, CODE, encodeLink(key, CODE, link))).toEqual({
      ...link,
      version: 7,
    });
    expect(decodeLink(rotating, CODE, encodeGone(previous, CODE))).toBe(GONE);
    expect(decodeLink([key], CODE, encodeLink(previous, CODE, link))).toBeInstanceOf(RefusedEntry);
    const other = linkCacheKey('a-third-secret-of-enough-length');
    expect(decodeLink(rotating, CODE, encodeLink(other, CODE, link))).toBeInstanceOf(RefusedEntry);
  });

  it('treats no entry as unknown', () => {
    expect(decodeLink(key, CODE, null)).toBeNull();
  });

  it.each([
    ['unsigned', '1800000000000|https://attacker.example/'],
    ['unsigned gone marker', '!'],
    ['a made-up signature', `${'A'.repeat(22)}|1800000000000|https://attacker.example/`],
    ['the signature of another body', swappedBody('1800000000000|https://attacker.example/')],
    ['empty', ''],
  ])('refuses an entry %s', (_, value) => {
    expect(decodeLink(key, CODE, value)).toBeInstanceOf(RefusedEntry);
  });

  it("refuses another code's entry and another key's", () => {
    const link = { url: 'https://example.com/', expiresAt: 1_800_000_000_000 };
    expect(decodeLink(key, 'zzz9999', encodeLink(key, CODE, link))).toBeInstanceOf(RefusedEntry);
    expect(decodeLink(key, 'zzz9999', encodeGone(key, CODE))).toBeInstanceOf(RefusedEntry);
    const other = linkCacheKey('another-secret-of-enough-length');
    expect(decodeLink(other, CODE, encodeLink(key, CODE, link))).toBeInstanceOf(RefusedEntry);
  });

  it.each([
    '|https://x',
    'abc|https://x',
    '123|',
    'no-separator',
    'v1:2|x|https://x',
    'v1|1|https://x',
  ])('treats the signed but unreadable %p as unknown', (body) => {
    expect(decodeLink(key, CODE, signedBody(body))).toBeNull();
  });

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
  ])('refuses a link to %p, even signed', (url) => {
    const value = encodeLink(key, CODE, { url, expiresAt: 1_800_000_000_000 });
    expect(decodeLink(key, CODE, value)).toBeInstanceOf(RefusedEntry);
  });
});

describe('link cache values with rules or a urlId', () => {
  const rules = {
    ios: 'https://apps.apple.com/app/id1',
    android: 'https://play.google.com/store/apps/details?id=x',
    geo: { GB: 'https://example.co.uk/', DE: 'https://example.de/|a' },
    passwordHash:
      'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U',
    maxVisits: 100,
  };
  const BRANDED = 'go.acme.example/spring';

  it('keeps a plain link byte for byte in the form the previous release reads', () => {
    const link = { url: 'https://example.com/a|b', expiresAt: 1_800_000_000_000, version: 3 };
    expect(encodeLinkAt(key, CODE, link, LEASE)).toBe(
      signedBody(`v3:${LEASE}|1800000000000|https://example.com/a|b`),
    );
  });

  it('round-trips the urlId and every rule, signed for the key they are kept under', () => {
    const link = { url: 'https://example.com/', expiresAt: 1_800_000_000_000, version: 4 };
    const value = encodeLinkAt(key, BRANDED, { ...link, urlId: CODE, rules }, LEASE);
    expect(decodeVersioned(key, BRANDED, value)).toEqual({
      entry: { ...link, urlId: CODE, rules },
      version: 4,
      leaseUntil: LEASE,
    });
    expect(decodeLink(key, CODE, value)).toBeInstanceOf(RefusedEntry);
    const ruledOnly = encodeLinkAt(key, CODE, { ...link, rules: { maxVisits: 2 } }, LEASE);
    expect(decodeLink(key, CODE, ruledOnly)).toEqual({ ...link, rules: { maxVisits: 2 } });
  });

  it("is in a form the previous release's reader takes for unknown, not for a plain link", () => {
    const link = { url: 'https://example.com/', expiresAt: 1_800_000_000_000, version: 4 };
    const value = encodeLinkAt(key, CODE, { ...link, rules: { ios: rules.ios } }, LEASE);
    const body = value.slice(23);
    // The previous release reads "!" as a gone marker and "v<version>:<lease>" as a link.
    expect(body.startsWith('!')).toBe(false);
    const [stamp] = body.split('|');
    expect(/^v(\d{1,16}):(\d{1,16})$/.test(stamp!)).toBe(false);
    expect(stamp).toBe(`r4:${LEASE}`);
  });

  it.each([
    ['a rule destination that is not http(s)', { ios: 'javascript:alert(1)' }],
    ['a geo destination to a loopback host', { geo: { GB: 'http://127.0.0.1/' } }],
  ])('refuses, even signed, %s', (_, bad) => {
    const link = { url: 'https://example.com/', expiresAt: 1_800_000_000_000, version: 1 };
    const value = encodeLinkAt(key, CODE, { ...link, rules: bad }, LEASE);
    expect(decodeLink(key, CODE, value)).toBeInstanceOf(RefusedEntry);
  });

  it.each([
    'r1:2|3|not json',
    'r1:2|3|[]',
    'r1:2|3|{"urlId":"abc1234"}',
    'r1:2|3|{"url":"https://x.example/","urlId":7}',
    'r1:2|3|{"url":"https://x.example/","rules":{"maxVisits":0}}',
    'r1:2|3|{"url":"https://x.example/","rules":{"geo":{"gb":"https://x.example/"}}}',
    'r1:2|3|{"url":"https://x.example/","rules":{"other":1}}',
    'r1:2|3|{"url":"https://x.example/","rules":{"passwordHash":5}}',
  ])('treats the signed but unreadable %p as unknown', (body) => {
    expect(decodeLink(key, CODE, signedBody(body))).toBeNull();
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

  it('refuses the rest by the rules a link is created under, saying which', () => {
    expect(redirectTarget('javascript:alert(1)')).toEqual({
      ok: false,
      reason: 'Only http and https URLs can be shortened.',
    });
    expect(redirectTarget('https://a.example/\n')).toEqual({
      ok: false,
      reason: 'The URL must not contain spaces or control characters.',
    });
    for (const url of [
      'http://127.0.0.1:7002/metrics',
      'http://[64:ff9b::7f00:1]/',
      'http://localhost/',
    ]) {
      expect(redirectTarget(url)).toEqual({
        ok: false,
        reason: 'Short links of this service cannot be shortened again.',
      });
    }
    expect(redirectTarget('https://user:pw@a.example/')).toEqual({
      ok: false,
      reason: 'URLs with a user name or password cannot be shortened.',
    });
  });
});
