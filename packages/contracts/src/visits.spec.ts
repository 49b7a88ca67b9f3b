import { parseVisitEvent, visitEventSchema, type VisitEvent } from './visits';

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
