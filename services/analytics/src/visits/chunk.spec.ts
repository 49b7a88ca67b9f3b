import { chunk } from './chunk';

describe('chunk', () => {
  it('splits a burst into statements of at most the given size, keeping every row once', () => {
    const rows = Array.from({ length: 12_345 }, (_, index) => index);
    const pieces = chunk(rows, 5000);
    expect(pieces.map((piece) => piece.length)).toEqual([5000, 5000, 2345]);
    expect(pieces.flat()).toEqual(rows);
    expect(chunk([], 5000)).toEqual([]);
  });
});
