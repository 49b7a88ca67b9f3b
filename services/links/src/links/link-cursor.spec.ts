import { decodeLinkCursor, encodeLinkCursor } from './link-cursor';

describe('link cursors', () => {
  it('read back what they were made from, microseconds included', () => {
    const cursor = { order: 'newest', micros: 1_764_000_000_123_456n, code: 'AbC1234' } as const;
    expect(decodeLinkCursor(encodeLinkCursor(cursor))).toEqual(cursor);
    const alias = { order: 'newest', micros: 1n, code: 'my-own_alias' } as const;
    expect(decodeLinkCursor(encodeLinkCursor(alias))).toEqual(alias);
    const expiring = { order: 'expiring', micros: 1_766_000_000_000_001n, code: 'x_Y-z' } as const;
    expect(decodeLinkCursor(encodeLinkCursor(expiring))).toEqual(expiring);
  });

  it('read a newest-first cursor made before there were other orders', () => {
    expect(decodeLinkCursor(Buffer.from('1764000000123456:AbC1234').toString('base64url'))).toEqual(
      { order: 'newest', micros: 1_764_000_000_123_456n, code: 'AbC1234' },
    );
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['no separator', Buffer.from('1764000000123456').toString('base64url')],
    ['no time', Buffer.from(':AbC1234').toString('base64url')],
    ['a time too long', Buffer.from(`${'9'.repeat(18)}:AbC1234`).toString('base64url')],
    ['a code with other characters', Buffer.from("1:Ab' OR 1=1").toString('base64url')],
    ['too long', 'A'.repeat(121)],
    ['an order it does not know', Buffer.from('v:1:AbC1234').toString('base64url')],
  ])('refuse %s', (_what, text) => {
    expect(decodeLinkCursor(text)).toBeNull();
  });
});
