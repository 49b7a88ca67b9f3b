import { createLinkRequestSchema } from './internal';
import { checkTargetUrl, isShortCode, parseExpiryDays } from './links';

describe('parseExpiryDays', () => {
  it.each([
    ['7', 7],
    ['15', 15],
    [30, 30],
    ['60', 60],
    ['45', 7],
    ['abc', 7],
    ['-1', 7],
    ['30.0', 7],
    [' 30 ', 30],
    [undefined, 7],
    [['30', '60'], 7],
  ])('reads %p as %p days', (raw, days) => {
    expect(parseExpiryDays(raw)).toBe(days);
  });
});

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
  });
});

describe('isShortCode', () => {
  it.each(['abcDEF1', '0000000'])('accepts %s', (code) => expect(isShortCode(code)).toBe(true));
  it.each(['abc', 'abcdefgh', 'abc/def', 'abc.def', 'abcdéfg', '../../x', ''])(
    'refuses %p',
    (code) => expect(isShortCode(code)).toBe(false),
  );
});

describe('createLinkRequestSchema', () => {
  it('accepts a request without days (they default to 7 later)', () => {
    expect(createLinkRequestSchema.safeParse({ url: 'https://example.com' })).toMatchObject({
      success: true,
      data: { url: 'https://example.com' },
    });
  });
});
