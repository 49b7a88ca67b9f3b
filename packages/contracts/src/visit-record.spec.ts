import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  checkRecordedVisit,
  encodeVisitRecord,
  isVisitRecord,
  readVisitRecord,
  VISIT_RECORD_MAX_EVENTS,
  VisitRecordBuilder,
} from './visit-record';
import { checkVisitEvent, type VisitEvent } from './visits';

function visit(overrides: Partial<VisitEvent> = {}): VisitEvent {
  return {
    schemaVersion: 1,
    id: randomUUID(),
    urlID: 'abcDEF1',
    timestamp: 1_763_900_000_123,
    ip: '2001:db8::1',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
    referrer: 'https://example.com/a?b=c',
    ...overrides,
  };
}

const withoutVersion = ({ schemaVersion: _version, ...rest }: VisitEvent) => rest;

function reason(raw: Buffer): string {
  const read = readVisitRecord(raw);
  if (read.ok) throw new Error('expected the record to be refused');
  return read.reason;
}

describe('visit records', () => {
  it('carry every field of every event, in order, as a one-event message would', () => {
    const events = [
      visit(),
      visit({ referrer: null, userAgent: '' }),
      visit({ userAgent: 'Ünïcödé 浏览器 🚀', referrer: 'https://例子.测试/路径' }),
      visit({ id: '0B6F3A52-6A5E-4A8F-9D3C-2F1E0C9B8A7D', timestamp: Number.MAX_SAFE_INTEGER }),
    ];
    const raw = encodeVisitRecord(events);
    expect(isVisitRecord(raw)).toBe(true);
    const read = readVisitRecord(raw);
    expect(read).toEqual({
      ok: true,
      events: events.map((event) => ({ ...withoutVersion(event), id: event.id.toLowerCase() })),
    });
    for (const recorded of read.ok ? read.events : []) {
      expect(checkRecordedVisit(recorded).ok).toBe(true);
    }
  });

  it('are told apart from one-event JSON messages by their first byte', () => {
    expect(isVisitRecord(Buffer.from(JSON.stringify(visit())))).toBe(false);
    expect(isVisitRecord(Buffer.alloc(0))).toBe(false);
    expect(isVisitRecord(null)).toBe(false);
  });

  it('refuse whole a record cut anywhere, naming where', () => {
    const raw = encodeVisitRecord([visit(), visit({ referrer: null })]);
    for (let length = 0; length < raw.length; length++) {
      expect(reason(raw.subarray(0, length))).toMatch(/^truncated record/);
    }
  });

  it('refuse a record of an unknown version, stray bytes, no events, too many events', () => {
    const raw = encodeVisitRecord([visit()]);
    const version = Buffer.from(raw);
    version[1] = 9;
    expect(reason(version)).toBe('unknown record version 9');
    expect(reason(Buffer.concat([raw, Buffer.from([1, 2, 3])]))).toBe(
      '3 stray bytes after event 1',
    );
    const empty = Buffer.from(raw.subarray(0, 6));
    empty.writeUInt32BE(0, 2);
    expect(reason(empty)).toBe('empty record');
    const many = Buffer.from(raw);
    many.writeUInt32BE(VISIT_RECORD_MAX_EVENTS + 1, 2);
    expect(reason(many)).toBe(`oversized record: ${VISIT_RECORD_MAX_EVENTS + 1} events`);
    const huge = Buffer.concat([raw, Buffer.alloc(1_000_000)]);
    expect(reason(huge)).toBe(`oversized record: ${huge.length} bytes`);
  });

  it('refuse a record whose required text is marked null', () => {
    const raw = Buffer.from(encodeVisitRecord([visit({ urlID: 'abc' })]));
    // The urlID's length sits right after the id and timestamp.
    raw.writeUInt16BE(0xffff, 6 + 24);
    expect(reason(raw)).toBe('event 1 of 1: null text where text is required');
  });

  it("leave each event's own check to the schema, so one bad event can be set apart", () => {
    const raw = encodeVisitRecord([visit(), visit({ urlID: 'abc' })]);
    // Forge the second event's urlID and the first event's id version nibble.
    const forged = Buffer.from(raw);
    forged.write('../', forged.indexOf('abc'), 'latin1');
    forged[6 + 6] = 0x00;
    const read = readVisitRecord(forged);
    expect(read.ok).toBe(true);
    const checks = read.ok ? read.events.map(checkRecordedVisit) : [];
    expect(checks.map((check) => (check.ok ? 'ok' : check.reason.split(':')[0]))).toEqual([
      'id',
      'urlID',
    ]);
  });

  it('fill a builder up to its capacity and say when the next event does not fit', () => {
    const builder = new VisitRecordBuilder(4096);
    let added = 0;
    while (builder.add(visit())) added++;
    expect(added).toBeGreaterThan(10);
    const raw = builder.finish();
    expect(raw.length).toBeLessThanOrEqual(4096);
    const read = readVisitRecord(raw);
    expect(read.ok && read.events.length).toBe(added);
  });

  it('never throw on bytes anyone could write to the topic: a reason, or events to check', () => {
    const valid = encodeVisitRecord([visit(), visit({ referrer: null }), visit()]);
    const mutated = fc
      .array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })), {
        maxLength: 8,
      })
      .map((edits) => {
        const raw = Buffer.from(valid);
        for (const [at, byte] of edits) raw[at] = byte;
        return raw;
      });
    const anyBytes = fc
      .uint8Array({ maxLength: 300 })
      .map((bytes) => Buffer.from([0, 1, ...bytes]));
    fc.assert(
      fc.property(fc.oneof(mutated, anyBytes), (raw) => {
        const read = readVisitRecord(raw);
        if (!read.ok) return read.reason.length > 0;
        // Whatever was read is then checked alone, and that never throws either.
        for (const event of read.events) checkRecordedVisit(event);
        return read.events.length > 0;
      }),
      { numRuns: 5000, seed: 16 },
    );
  });

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
        const check = checkRecordedVisit(event);
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
