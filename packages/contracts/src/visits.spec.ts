import { parseVisitEvent, serializeVisitEvent, type VisitEvent } from './visits';

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
    expect(parseVisitEvent(Buffer.from(serializeVisitEvent(event)))).toEqual({ ok: true, event });
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

  it('refuses to serialise an event that breaks the schema', () => {
    expect(() => serializeVisitEvent({ ...event, ip: '' })).toThrow();
  });
});
