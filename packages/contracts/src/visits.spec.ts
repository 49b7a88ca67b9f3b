import fc from 'fast-check';
import { parseVisitEvent } from './visit-codec';
import { checkVisitEvent, checkVisitFields, visitEventSchema, type VisitEvent } from './visits';

const event: VisitEvent = {
  schemaVersion: 1,
  id: '0b6f3a52-6a5e-4a8f-9d3c-2f1e0c9b8a7d',
  urlID: 'abcDEF1',
  timestamp: 1_763_900_000_000,
  ip: '203.0.113.9',
  userAgent: 'Mozilla/5.0',
  referrer: null,
};

describe('visit events', () => {
  it('round-trips through the wire format', () => {
    expect(parseVisitEvent(Buffer.from(JSON.stringify(event)))).toEqual({ ok: true, event });
  });

  it.each([
    [null, 'empty message'],
    ['not json', 'not JSON'],
    [JSON.stringify({ ...event, schemaVersion: 2 }), 'schemaVersion'],
    [JSON.stringify({ ...event, urlID: '../etc' }), 'urlID'],
    [JSON.stringify({ ...event, id: 'nope' }), 'id'],
  ])('rejects %p with a reason', (raw, reason) => {
    const result = parseVisitEvent(raw);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toContain(reason);
  });

  it("fails the producers' check for an event that breaks the schema", () => {
    expect(visitEventSchema.safeParse({ ...event, ip: '' }).success).toBe(false);
  });
});

describe('visit event text', () => {
  // What PostgreSQL cannot store as sent: NUL is refused (with the whole batch), a lone
  // surrogate has no UTF-8 form.
  const refused: [string, string][] = [
    ['NUL', 'a\u0000b'],
    ['a lone high surrogate', 'Mozilla \uD83D'],
    ['a lone low surrogate', '\uDE00 Mozilla'],
    ['surrogates in the wrong order', '\uDE00\uD83D'],
  ];

  it.each(['ip', 'userAgent', 'referrer'] as const)(
    'refuses NUL and lone surrogates in %s, naming the field and why',
    (field) => {
      for (const [what, text] of refused) {
        const result = parseVisitEvent(JSON.stringify({ ...event, [field]: text }));
        expect({ what, ok: result.ok }).toEqual({ what, ok: false });
        expect(result.ok ? '' : result.reason).toMatch(new RegExp(`^${field}: contains`));
        expect(visitEventSchema.safeParse({ ...event, [field]: text }).success).toBe(false);
      }
    },
  );

  it('names NUL and lone surrogates apart', () => {
    const nul = parseVisitEvent(JSON.stringify({ ...event, userAgent: 'x\u0000' }));
    const lone = parseVisitEvent(JSON.stringify({ ...event, userAgent: 'x\uD800' }));
    expect(nul).toEqual({ ok: false, reason: 'userAgent: contains a NUL character' });
    expect(lone).toEqual({ ok: false, reason: 'userAgent: contains a lone surrogate' });
  });

  it('keeps valid unicode as it came: accents, CJK, right-to-left, emoji pairs, latin1 bytes', () => {
    const unicode: VisitEvent = {
      ...event,
      ip: '2001:db8::1',
      userAgent: 'Mozilla/5.0 (café; 日本語; עברית) 😀👍🏽 \u00ff\u0080',
      referrer: 'https://例え.テスト/パス?q=😀',
    };
    expect(parseVisitEvent(Buffer.from(JSON.stringify(unicode)))).toEqual({
      ok: true,
      event: unicode,
    });
  });
});

describe('visit fields', () => {
  it('check a recorded event exactly as the schema does: same outcome, same reason', () => {
    // Each field mostly valid, so that about half the events pass and half fail on one field.
    const mostly = <T>(valid: fc.Arbitrary<T>, any: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: valid, weight: 9 }, { arbitrary: any, weight: 1 });
    const piece = fc.oneof(
      fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\uD83D\uDE80', 'é', 'a', ' '),
      fc.string({ maxLength: 4 }),
    );
    const text = (limit: number) =>
      mostly(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.oneof(
          fc.array(piece, { maxLength: 6 }).map((parts) => parts.join('')),
          // Around the schema's length limits.
          fc
            .tuple(
              fc.integer({ min: limit - 2, max: limit + 2 }),
              fc.constantFrom('', '\u0000', '\uD800', '\uD83D\uDE80'),
            )
            .map(([length, tail]) => 'a'.repeat(Math.max(0, length - tail.length)) + tail),
        ),
      );
    const id = mostly(
      fc.uuid({ version: [1, 4, 7] }),
      fc.oneof(
        fc.uuid({ version: [1, 2, 3, 4, 5, 6, 7, 8, 15] }),
        fc.uuid().map((uuid) => uuid.toUpperCase()),
        fc.constantFrom(
          '00000000-0000-0000-0000-000000000000',
          'ffffffff-ffff-ffff-ffff-ffffffffffff',
          '0195f3a2-7c4e-0d2b-8f10-3a9c5e6b7d8e',
          '0195f3a2-7c4e-9d2b-8f10-3a9c5e6b7d8e',
          '0195f3a2-7c4e-7d2b-cf10-3a9c5e6b7d8e',
        ),
        fc.string({ minLength: 34, maxLength: 38 }),
      ),
    );
    const recorded = fc.record({
      id,
      urlID: mostly(
        fc.stringMatching(/^[0-9A-Za-z]{7}$/),
        fc.oneof(fc.constantFrom('abc', 'abcDEF12', 'abc-EF1'), fc.string({ maxLength: 8 })),
      ),
      timestamp: mostly(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.oneof(
          fc.integer({ min: -5, max: 5 }),
          fc.constantFrom(0.5, 1.5e12 + 0.25, Number.MAX_SAFE_INTEGER + 1, 2 ** 60, NaN, Infinity),
          fc.double(),
        ),
      ),
      ip: text(64),
      userAgent: text(1024),
      referrer: fc.option(text(2048), { nil: null }),
    });
    let valid = 0;
    fc.assert(
      fc.property(recorded, (event) => {
        const check = checkVisitFields(event);
        expect(check).toEqual(checkVisitEvent({ schemaVersion: 1, ...event }));
        if (check.ok) valid++;
      }),
      { numRuns: 20_000, seed: 16 },
    );
    // Both sides of the line were tried.
    expect(valid).toBeGreaterThan(500);
    expect(valid).toBeLessThan(19_500);
  });
});
