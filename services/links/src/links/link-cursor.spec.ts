import { decodeLinkCursor, encodeLinkCursor } from './link-cursor';

describe('link cursors', () => {
  it('read back what they were made from, microseconds included', () => {
    const cursor = { createdMicros: 1_764_000_000_123_456n, code: 'AbC1234' };
    expect(decodeLinkCursor(encodeLinkCursor(cursor))).toEqual(cursor);
    const alias = { createdMicros: 1n, code: 'my-own_alias' };
    expect(decodeLinkCursor(encodeLinkCursor(alias))).toEqual(alias);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['no separator', Buffer.from('1764000000123456').toString('base64url')],
    ['no time', Buffer.from(':AbC1234').toString('base64url')],
    ['a time too long', Buffer.from(`${'9'.repeat(18)}:AbC1234`).toString('base64url')],
    ['a code with other characters', Buffer.from("1:Ab' OR 1=1").toString('base64url')],
    ['too long', 'A'.repeat(121)],
  ])('refuse %s', (_what, text) => {
    expect(decodeLinkCursor(text)).toBeNull();
  });
});
