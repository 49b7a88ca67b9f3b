import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  appendVisit,
  decodeVisits,
  encodedVisitEnd,
  encodedVisitUrlID,
  encodeVisitEvent,
  encodeVisitRecord,
  encodeVisitTraces,
  isVisitRecord,
  readVisitTraces,
  readVisitRecord,
  VISIT_ID_BYTES,
  VISIT_RECORD_MAX_EVENTS,
  VISIT_TRACES_MAX,
  visitBytesBound,
  type VisitTrace,
  visitRecordOf,
  VisitRecordBuilder,
} from './visit-codec';
import { checkVisitEvent, checkVisitFields, type VisitEvent } from './visits';

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
      expect(checkVisitFields(recorded).ok).toBe(true);
    }
  });

  it('decode to every event checked, with each as the record held it', () => {
    const events = [visit(), visit({ referrer: null }), visit({ urlID: 'abc' })];
    const decoded = decodeVisits(encodeVisitRecord(events));
    expect(decoded).toEqual({
      ok: true,
      events: events.map((event) => checkVisitEvent(event)),
      recorded: events.map(withoutVersion),
    });
  });

  it('are appended visit by visit exactly as a builder writes them', () => {
    const events = [visit(), visit({ referrer: null, userAgent: 'Ünïcödé 🚀' })];
    const bytes = Buffer.alloc(1024);
    const ids = Buffer.alloc(VISIT_ID_BYTES * events.length);
    let end = 0;
    for (const [index, event] of events.entries()) {
      ids.write(event.id.replace(/-/g, ''), index * VISIT_ID_BYTES, 'hex');
      const bound = visitBytesBound(event.urlID, event.ip, event.userAgent, event.referrer);
      const next = appendVisit(
        bytes,
        end,
        ids,
        index * VISIT_ID_BYTES,
        event.timestamp,
        event.urlID,
        event.ip,
        event.userAgent,
        event.referrer,
      );
      expect(next - end).toBeLessThanOrEqual(bound);
      end = next;
    }
    const run = { bytes: bytes.subarray(0, end), count: events.length };
    expect(visitRecordOf(run)).toEqual(encodeVisitRecord(events));
    expect(encodedVisitUrlID(run.bytes, 0)).toBe(events[0]!.urlID);
    expect(encodedVisitEnd(run.bytes, encodedVisitEnd(run.bytes, 0))).toBe(end);
    // A write torn anywhere in the last event is told, not read past.
    const second = encodedVisitEnd(run.bytes, 0);
    for (let torn = second + 1; torn < end; torn++) {
      expect(encodedVisitEnd(run.bytes, second, torn)).toBe(-1);
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
    const checks = read.ok ? read.events.map(checkVisitFields) : [];
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
        for (const event of read.events) checkVisitFields(event);
        return read.events.length > 0;
      }),
      { numRuns: 5000, seed: 16 },
    );
  });
});

describe('one-event messages', () => {
  it('are the version-1 JSON of an event, its fields in their order, read back as they were', () => {
    const event = visit({ referrer: null });
    const encoded = encodeVisitEvent(withoutVersion(event));
    expect(encoded.toString('utf8')).toBe(JSON.stringify(event));
    expect(isVisitRecord(encoded)).toBe(false);
    expect(decodeVisits(encoded)).toEqual({ ok: true, events: [{ ok: true, event }] });
  });

  it('carry an event of a record alone, as the dead-letter topic keeps it', () => {
    const events = [visit(), visit({ urlID: 'abc' })];
    const decoded = decodeVisits(encodeVisitRecord(events));
    const recorded = decoded.ok ? decoded.recorded! : [];
    const alone = encodeVisitEvent(recorded[1]!);
    expect(alone.toString('utf8')).toBe(JSON.stringify({ schemaVersion: 1, ...recorded[1] }));
    expect(decodeVisits(alone)).toEqual(checkVisitEvent({ schemaVersion: 1, ...recorded[1] }));
    expect(decodeVisits(alone).ok).toBe(false);
  });

  it('are refused whole when not JSON or not a valid event', () => {
    expect(decodeVisits(null)).toEqual({ ok: false, reason: 'empty message' });
    expect(decodeVisits(Buffer.alloc(0))).toEqual({ ok: false, reason: 'not JSON' });
    expect(decodeVisits('{')).toEqual({ ok: false, reason: 'not JSON' });
    const invalid = decodeVisits(JSON.stringify({ ...visit(), urlID: 'abc' }));
    expect(invalid.ok ? '' : invalid.reason).toMatch(/^urlID: /);
  });
});

describe('the trace header', () => {
  const trace = (n: number, traceFlags = 1): VisitTrace => ({
    traceId: n.toString(16).padStart(32, 'a'),
    spanId: n.toString(16).padStart(16, 'b'),
    traceFlags,
  });

  it('carries trace contexts as traceparents, read back as they were', () => {
    const traces = [trace(1), trace(2, 0), trace(3)];
    const header = encodeVisitTraces(traces);
    expect(header).toBe(
      `00-${trace(1).traceId}-${trace(1).spanId}-01,` +
        `00-${trace(2).traceId}-${trace(2).spanId}-00,` +
        `00-${trace(3).traceId}-${trace(3).spanId}-01`,
    );
    expect(readVisitTraces(header)).toEqual(traces);
    expect(readVisitTraces(Buffer.from(header))).toEqual(traces);
  });

  it('holds at most VISIT_TRACES_MAX contexts, written or read', () => {
    const many = Array.from({ length: VISIT_TRACES_MAX + 5 }, (_, n) => trace(n + 1));
    const header = encodeVisitTraces(many);
    expect(readVisitTraces(header)).toEqual(many.slice(0, VISIT_TRACES_MAX));
    const repeated = [header, header];
    expect(readVisitTraces(repeated)).toHaveLength(VISIT_TRACES_MAX);
  });

  it('reads nothing from a record without it', () => {
    expect(readVisitTraces(undefined)).toEqual([]);
    expect(readVisitTraces(null)).toEqual([]);
  });

  it('skips what is not a traceparent with real ids, and keeps the rest', () => {
    const good = encodeVisitTraces([trace(7)]);
    const header = [
      'garbage',
      `00-${'0'.repeat(32)}-${'b'.repeat(16)}-01`, // all-zero trace id: invalid
      `00-${'a'.repeat(32)}-${'0'.repeat(16)}-01`, // all-zero span id: invalid
      `ff-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, // unknown version
      `00-${'A'.repeat(32)}-${'b'.repeat(16)}-01`, // upper case
      `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01-extra`,
      good,
    ].join(',');
    expect(readVisitTraces(header)).toEqual([trace(7)]);
  });

  it('never throws on hostile headers, however long or strange', () => {
    expect(readVisitTraces(Buffer.alloc(10_000_000, 0x2c))).toEqual([]);
    expect(readVisitTraces({ toString: () => 'x' })).toEqual([]);
    expect(readVisitTraces([1, {}, Buffer.from([0xff, 0xfe])])).toEqual([]);
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(Array.isArray(readVisitTraces(value))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        for (const read of readVisitTraces(text)) {
          expect(read.traceId).toMatch(/^[0-9a-f]{32}$/);
          expect(read.spanId).toMatch(/^[0-9a-f]{16}$/);
        }
      }),
    );
  });
});
