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
import type { VisitEvent } from './visits';

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
});
