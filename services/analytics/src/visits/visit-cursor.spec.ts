import { decodeCursor, encodeCursor } from './visit-cursor';

describe('visit cursor', () => {
  const cursor = {
    createdAt: new Date('2026-11-23T10:15:30.123Z'),
    id: '0b6f3c1e-8a52-4c7d-9f1e-2a3b4c5d6e7f',
  };

  it('round-trips the last visit of a page', () => {
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(cursor);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['random text', Buffer.from('hello').toString('base64url')],
    ['no id', Buffer.from('1700000000000:').toString('base64url')],
    ['bad id', Buffer.from('1700000000000:not-a-uuid').toString('base64url')],
    ['bad time', Buffer.from(`x:${cursor.id}`).toString('base64url')],
    ['time out of range', Buffer.from(`9999999999999999:${cursor.id}`).toString('base64url')],
    ['too long', 'A'.repeat(200)],
  ])('rejects a cursor that is %s', (_, text) => {
    expect(decodeCursor(text)).toBeNull();
  });
});
