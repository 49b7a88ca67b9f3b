import { randomUUID } from 'node:crypto';
import {
  decodeVisits,
  encodedVisitEnd,
  encodedVisitUrlID,
  encodeVisitEvent,
  encodeVisitRecord,
  encodeVisits,
  readVisitRecord,
  readVisitUtm,
  VISIT_RECORD_HEADER_BYTES,
  VISIT_UTM_HEADER,
  VisitRecordBuilder,
} from './visit-codec';
import { checkVisitEvent, utmValue, type VisitEvent } from './visits';

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
const withoutUtm = ({ utmSource: _s, utmMedium: _m, utmCampaign: _c, ...rest }: VisitEvent) => rest;

/** The record as the Kafka publisher builds it: the plain layout, and the utm header. */
function forKafka(events: VisitEvent[]): { value: Buffer; utm: string | undefined } {
  const { bytes, count } = encodeVisits(events);
  const builder = new VisitRecordBuilder();
  let at = 0;
  for (let index = 0; index < count; index++) {
    expect(builder.addPlain(bytes, at)).toBe(true);
    at = encodedVisitEnd(bytes, at);
  }
  const utm = builder.utmHeader;
  return { value: builder.finish(), utm };
}

const tagged = [
  visit({ utmSource: 'news', utmMedium: 'email', utmCampaign: 'spring' }),
  visit({ referrer: null }),
  visit({ utmCampaign: 'Ünïcödé 🚀 "quoted", [1]' }),
];

describe("a visit's campaign fields in its bytes (queue, spool, embedded bus)", () => {
  it('are read back as they were written, and absent ones stay absent', () => {
    const read = readVisitRecord(encodeVisitRecord(tagged));
    expect(read).toEqual({ ok: true, events: tagged.map(withoutVersion) });
    const decoded = decodeVisits(encodeVisitRecord(tagged));
    expect(decoded.ok && decoded.events).toEqual(tagged.map((event) => ({ ok: true, event })));
  });

  it("are walked over by encodedVisitEnd, and leave the event's urlID readable", () => {
    const { bytes, count } = encodeVisits(tagged);
    let at = 0;
    for (let index = 0; index < count; index++) {
      expect(encodedVisitUrlID(bytes, at)).toBe('abcDEF1');
      at = encodedVisitEnd(bytes, at);
      expect(at).toBeGreaterThan(0);
    }
    expect(at).toBe(bytes.length);
    expect(encodedVisitEnd(bytes, 0, encodedVisitEnd(bytes, 0) - 1)).toBe(-1);
  });

  it('refuse a record cut inside them', () => {
    const raw = encodeVisitRecord([tagged[0]!]);
    const read = readVisitRecord(raw.subarray(0, raw.length - 3));
    expect(read).toEqual({ ok: false, reason: 'truncated record: event 1 of 1' });
  });
});

describe('a record for Kafka: the layout the release before reads, and the utm header', () => {
  it('holds in its value exactly the bytes of the events without campaign fields', () => {
    const { value, utm } = forKafka(tagged);
    expect(value.equals(encodeVisitRecord(tagged.map(withoutUtm) as VisitEvent[]))).toBe(true);
    // What the release before reads: every visit, without its campaign fields.
    const plain = decodeVisits(value);
    expect(plain.ok && plain.events).toEqual(
      tagged.map((event) => ({ ok: true, event: withoutUtm(event) })),
    );
    expect(JSON.parse(utm!)).toEqual([
      [0, 'news', 'email', 'spring'],
      [2, null, null, 'Ünïcödé 🚀 "quoted", [1]'],
    ]);
  });

  it('is read whole, campaign fields included, with its header', () => {
    const { value, utm } = forKafka(tagged);
    const decoded = decodeVisits(value, utm);
    expect(decoded.ok && decoded.events).toEqual(tagged.map((event) => ({ ok: true, event })));
    expect(decodeVisits(value, Buffer.from(utm!))).toEqual(decoded);
    expect(decodeVisits(value, [utm])).toEqual(decoded);
  });

  it('has no header when no visit has campaign fields', () => {
    expect(forKafka([visit(), visit({ referrer: null })]).utm).toBeUndefined();
  });

  it("counts the header's bytes in the record's room", () => {
    const events = Array.from({ length: 50 }, () =>
      visit({ utmSource: 's'.repeat(100), utmMedium: 'm'.repeat(100), utmCampaign: 'c' }),
    );
    const { bytes } = encodeVisits(events);
    const builder = new VisitRecordBuilder(4096);
    let at = 0;
    let added = 0;
    while (builder.addPlain(bytes, at)) {
      added++;
      at = encodedVisitEnd(bytes, at);
    }
    const utm = builder.utmHeader!;
    const value = builder.finish();
    expect(added).toBeGreaterThan(1);
    expect(added).toBeLessThan(50);
    expect(value.length + Buffer.byteLength(utm)).toBeLessThanOrEqual(4096);
    const decoded = decodeVisits(value, utm);
    expect(decoded.ok && decoded.events.every((event) => event.ok)).toBe(true);
  });
});

describe('the utm header read', () => {
  it('never throws, and skips what is not an entry of a visit of the record', () => {
    const hostile: unknown[] = [
      undefined,
      null,
      42,
      'not json',
      '{"0":["a"]}',
      '[[0,"a"],[1.5,"b",null,null],[-1,"c",null,null],[3,"d",null,null],["0","e",null,null]]',
      'x'.repeat(2_000_000),
      `[${'['.repeat(5000)}`,
    ];
    for (const header of hostile) expect(readVisitUtm(header, 3)).toEqual([]);
  });

  it('drops values a visit may not carry (too long, a NUL, not text), keeps the visit', () => {
    const header = JSON.stringify([
      [0, 'x'.repeat(101), 'ok', 7],
      [1, 'a\u0000b', null, 'fine'],
    ]);
    expect(readVisitUtm(header, 2)).toEqual([{ utmMedium: 'ok' }, { utmCampaign: 'fine' }]);
    const raw = encodeVisitRecord([visit(), visit()]);
    const decoded = decodeVisits(raw, header);
    expect(decoded.ok && decoded.events.every((event) => event.ok)).toBe(true);
  });

  it('lets campaign fields already in the bytes stand when the header is absent', () => {
    const raw = encodeVisitRecord([tagged[0]!]);
    const decoded = decodeVisits(raw, undefined);
    expect(decoded.ok && decoded.events[0]).toEqual({ ok: true, event: tagged[0] });
  });
});

describe('campaign fields in the one-event JSON form', () => {
  it('are carried when present and left out when absent', () => {
    const event = tagged[0]!;
    expect(JSON.parse(encodeVisitEvent(withoutVersion(event)).toString())).toMatchObject({
      utmSource: 'news',
      utmMedium: 'email',
      utmCampaign: 'spring',
    });
    const plain = JSON.parse(encodeVisitEvent(withoutVersion(visit())).toString()) as object;
    expect(Object.keys(plain)).toEqual([
      'schemaVersion',
      'id',
      'urlID',
      'timestamp',
      'ip',
      'userAgent',
      'referrer',
    ]);
  });

  it('are bounded by the schema: 1 to 100 characters, no NUL', () => {
    expect(checkVisitEvent(visit({ utmSource: 'x'.repeat(100) })).ok).toBe(true);
    expect(checkVisitEvent(visit({ utmSource: 'x'.repeat(101) }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('utmSource') as string,
    });
    expect(checkVisitEvent(visit({ utmMedium: '' })).ok).toBe(false);
    expect(checkVisitEvent(visit({ utmCampaign: 'a\u0000' })).ok).toBe(false);
  });
});

describe('utmValue: a campaign parameter as a visit keeps it', () => {
  it('drops control characters, trims, and is undefined when nothing is left', () => {
    expect(utmValue('  spring\u0000\u0007 sale\u007f\u0085 ')).toBe('spring sale');
    expect(utmValue('\r\n\t')).toBeUndefined();
    expect(utmValue('')).toBeUndefined();
    expect(utmValue(null)).toBeUndefined();
    expect(utmValue(undefined)).toBeUndefined();
  });

  it('keeps at most 100 characters, never half of a surrogate pair', () => {
    expect(utmValue('x'.repeat(300))).toBe('x'.repeat(100));
    const cut = utmValue(`${'x'.repeat(99)}🚀tail`)!;
    expect(cut).toBe('x'.repeat(99));
    expect(checkVisitEvent(visit({ utmSource: cut })).ok).toBe(true);
  });

  it('never makes a value the schema refuses', () => {
    for (const raw of ['\ud800x', 'a\udc00', `${'é'.repeat(150)}`, ' \u0000 ']) {
      const value = utmValue(raw);
      if (value !== undefined) expect(checkVisitEvent(visit({ utmSource: value })).ok).toBe(true);
    }
  });
});

it('names its Kafka header', () => {
  expect(VISIT_UTM_HEADER).toBe('visit-utm');
  expect(VISIT_RECORD_HEADER_BYTES).toBe(6);
});
