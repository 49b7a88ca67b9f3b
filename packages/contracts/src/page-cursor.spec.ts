import { decodePageCursor, encodePageCursor } from './page-cursor';

const LAYOUT = /^(\d+):([a-z]+)$/;

describe('page cursors', () => {
  it('reads back the fields they were made of', () => {
    const match = decodePageCursor(encodePageCursor([42n, 'abc']), 40, LAYOUT);
    expect(match?.slice(1)).toEqual(['42', 'abc']);
  });

  it('refuses text that is not base64url, too long, empty or of another layout', () => {
    expect(decodePageCursor('not base64!', 40, LAYOUT)).toBeNull();
    expect(decodePageCursor(encodePageCursor([42, 'abc']), 4, LAYOUT)).toBeNull();
    expect(decodePageCursor('', 40, LAYOUT)).toBeNull();
    expect(decodePageCursor(encodePageCursor(['abc', 42]), 40, LAYOUT)).toBeNull();
  });
});
