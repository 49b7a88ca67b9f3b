import { visitCountOf, visitCountsSchema } from './internal';

describe('visitCountsSchema', () => {
  it('keeps the count of a code named like a property every object has', () => {
    const wire = JSON.parse('{"counts":{"__proto__":3,"constructor":2,"toString":0}}') as unknown;
    const { counts } = visitCountsSchema.parse(wire);
    expect(visitCountOf(counts, '__proto__')).toBe(3);
    expect(visitCountOf(counts, 'constructor')).toBe(2);
    expect(visitCountOf(counts, 'toString')).toBe(0);
    expect(visitCountOf(counts, 'hasOwnProperty')).toBe(0);
  });

  it.each([[{ a: -1 }], [{ a: 1.5 }], [{ a: '1' }], [[1]], [null]])(
    'refuses counts of %j',
    (counts) => {
      expect(visitCountsSchema.safeParse({ counts }).success).toBe(false);
    },
  );
});
