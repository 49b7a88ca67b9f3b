import { createLinkRequestSchema } from './internal';
import { ALIAS_MESSAGES, checkAlias, isShortCode, parseExpiryDays } from './links';

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

describe('isShortCode', () => {
  it.each(['abcDEF1', '0000000', 'my-link', 'My_Alias', 'abcd', 'a'.repeat(50)])(
    'accepts %s (a generated code or an alias)',
    (code) => expect(isShortCode(code)).toBe(true),
  );
  it.each(['abc', 'a'.repeat(51), 'abc/def', 'abc.def', 'abcdéfg', '../../x', 'a b c', ''])(
    'refuses %p',
    (code) => expect(isShortCode(code)).toBe(false),
  );
});

describe('checkAlias', () => {
  it.each(['my-link', 'Summer_Sale-2026', 'abcd', 'x'.repeat(50)])('accepts %s', (alias) =>
    expect(checkAlias(alias)).toEqual({ ok: true, alias }),
  );
  it.each(['abc', 'x'.repeat(51), 'with space', 'dots.here', 'ünï', 'a/b/c', '', 42])(
    'refuses %p for its form',
    (alias) => expect(checkAlias(alias)).toEqual({ ok: false, message: ALIAS_MESSAGES.format }),
  );
  it.each(['login', 'LOGOUT', 'Profile', 'auth', 'assets', 'privacy_policy', 'healthz'])(
    'refuses the reserved word %s in any case',
    (alias) => expect(checkAlias(alias)).toEqual({ ok: false, message: ALIAS_MESSAGES.reserved }),
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
