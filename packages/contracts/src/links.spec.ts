import { createLinkRequestSchema } from './internal';
import { isShortCode, parseExpiryDays } from './links';

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
