import type { KafkaMessage } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import {
  encodeVisitRecord,
  encodeVisits,
  visitRecordOf,
  VISIT_EVENT_SCHEMA_VERSION,
  type VisitEvent,
} from '@shortener/contracts';
import { planBatch, unstorable, utcDay, type VisitEnrichment } from './visit-batch';

const enrich: VisitEnrichment = {
  userAgent: (userAgent) => ({
    platform: `os(${userAgent})`,
    browser: `browser(${userAgent})`,
    device: 'mobile',
    bot: userAgent === 'bot',
  }),
  ipAddress: (ip) => `masked(${ip})`,
  country: (ip) => (ip === '203.0.113.9' ? 'ZZ' : 'NL'),
  visitor: (day, ip, userAgent) => Buffer.from(`${day}|${ip}|${userAgent}`),
};

function event(overrides: Partial<VisitEvent> = {}): VisitEvent {
  return {
    schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
    id: randomUUID(),
    urlID: 'AbC1234',
    timestamp: Date.parse('2026-11-23T10:00:00.000Z'),
    ip: '203.0.113.9',
    userAgent: 'ua',
    referrer: null,
    ...overrides,
  };
}

let offset = 0;
function message(value: string | Buffer | null, key: string | null = 'AbC1234'): KafkaMessage {
  offset += 1;
  return {
    offset: String(offset),
    key: key === null ? null : Buffer.from(key),
    value: value === null ? null : Buffer.from(value),
    timestamp: '0',
    attributes: 0,
    headers: { origin: 'test' },
  };
}

/** As the Kafka source hands messages over: their bytes, and the message to answer for. */
const fromKafka = (messages: KafkaMessage[]) =>
  messages.map((origin) => ({ value: origin.value, origin }));

describe('planBatch', () => {
  it('turns valid events into rows with the User-Agent parsed and the IP as configured', () => {
    const visit = event({ referrer: 'https://example.com/' });
    const plan = planBatch(fromKafka([message(JSON.stringify(visit))]), enrich);
    expect(plan.rejected).toEqual([]);
    expect(plan.visits).toEqual([
      {
        id: visit.id,
        urlId: 'AbC1234',
        timestamp: visit.timestamp,
        ipAddress: 'masked(203.0.113.9)',
        platform: 'os(ua)',
        browser: 'browser(ua)',
        referrer: 'https://example.com/',
        bot: false,
        device: 'mobile',
        // From the address as given, before it is masked for storing.
        country: 'ZZ',
        referrerHost: 'example.com',
        utmSource: null,
        utmMedium: null,
        utmCampaign: null,
        visitor: Buffer.from('2026-11-23|203.0.113.9|ua'),
      },
    ]);
  });

  it("keeps a visit's campaign fields, from its JSON or from its record's utm header", () => {
    const json = event({ utmSource: 'news', utmCampaign: 'spring' });
    const [plain, tagged] = [event(), event()];
    const record = {
      ...message(null),
      value: encodeVisitRecord([plain, tagged]),
    };
    const header = JSON.stringify([[1, 'x', 'y', 'z']]);
    const plan = planBatch(
      [
        ...fromKafka([message(JSON.stringify(json))]),
        { value: record.value, origin: record, utm: Buffer.from(header) },
      ],
      enrich,
    );
    expect(plan.rejected).toEqual([]);
    expect(
      plan.visits.map(({ utmSource, utmMedium, utmCampaign }) => [
        utmSource,
        utmMedium,
        utmCampaign,
      ]),
    ).toEqual([
      ['news', null, 'spring'],
      [null, null, null],
      ['x', 'y', 'z'],
    ]);
  });

  it('sets aside what fails the schema with the message it came in and a reason, keeping the rest', () => {
    const good = event();
    const messages = [
      message('{not json'),
      message(JSON.stringify({ ...event(), schemaVersion: 2 })),
      message(null),
      message(JSON.stringify(good)),
      message(JSON.stringify(event({ timestamp: 9e15 }))),
    ];
    const plan = planBatch(fromKafka(messages), enrich);
    expect(plan.visits.map((row) => row.id)).toEqual([good.id]);
    expect(plan.rejected.map((rejected) => rejected.reason)).toEqual([
      'not JSON',
      expect.stringContaining('schemaVersion'),
      'empty message',
      'timestamp: out of range',
    ]);
    expect(plan.rejected.map((rejected) => rejected.origin)).toEqual([
      messages[0],
      messages[1],
      messages[2],
      messages[4],
    ]);
  });

  it('stores an event repeated inside one batch once', () => {
    const visit = event();
    const plan = planBatch(
      fromKafka([
        message(JSON.stringify(visit)),
        message(JSON.stringify({ ...visit, id: visit.id.toUpperCase() })),
      ]),
      enrich,
    );
    expect(plan.visits).toHaveLength(1);
    expect(plan.repeated).toBe(1);
  });

  it('keeps, for each row, the message it came from (to dead-letter it as it came)', () => {
    const messages = [
      message('{not json'),
      message(JSON.stringify(event())),
      message(JSON.stringify(event())),
    ];
    const plan = planBatch(fromKafka(messages), enrich);
    expect(plan.origins).toEqual([{ origin: messages[1] }, { origin: messages[2] }]);
    expect(plan.visits.map((row) => row.id)).toEqual(
      plan.origins.map(({ origin }) => (JSON.parse(origin.value!.toString()) as VisitEvent).id),
    );
  });

  it('takes events handed over in this process as record bytes, with the same checks', () => {
    const good = event();
    const late = event({ timestamp: 9e15 });
    const plan = planBatch(
      [
        { value: visitRecordOf(encodeVisits([good])), origin: 'first' },
        { value: visitRecordOf(encodeVisits([late])), origin: 'second' },
        { value: visitRecordOf(encodeVisits([good])), origin: 'third' },
      ],
      enrich,
    );
    expect(plan.visits.map((row) => row.id)).toEqual([good.id]);
    expect(plan.origins.map(({ origin }) => origin)).toEqual(['first']);
    expect(plan.rejected.map(({ origin, reason }) => [origin, reason])).toEqual([
      ['second', 'timestamp: out of range'],
    ]);
    expect(plan.repeated).toBe(1);
  });

  it('takes packed records and one-event messages in the same batch (a rolling upgrade)', () => {
    const [a, b, c, d] = [event(), event({ urlID: 'xyz9876' }), event(), event()];
    const messages = [
      message(JSON.stringify(a)),
      message(encodeVisitRecord([b, c]), null),
      message(JSON.stringify(d)),
    ];
    const plan = planBatch(fromKafka(messages), enrich);
    expect(plan.rejected).toEqual([]);
    expect(plan.visits.map((row) => [row.id, row.urlId])).toEqual([
      [a.id, a.urlID],
      [b.id, 'xyz9876'],
      [c.id, c.urlID],
      [d.id, d.urlID],
    ]);
    expect(plan.origins.map(({ origin, part }) => [origin, part?.index, part?.count])).toEqual([
      [messages[0], undefined, undefined],
      [messages[1], 1, 2],
      [messages[1], 2, 2],
      [messages[2], undefined, undefined],
    ]);
  });

  it('stores once an event that came both alone and packed (a redelivery across an upgrade)', () => {
    const visit = event();
    const plan = planBatch(
      fromKafka([message(JSON.stringify(visit)), message(encodeVisitRecord([visit, event()]))]),
      enrich,
    );
    expect(plan.visits).toHaveLength(2);
    expect(plan.repeated).toBe(1);
  });

  it('sets aside one bad event of a record alone, with its place, and keeps the others', () => {
    const [good, bad, late] = [event(), event({ urlID: 'abc' }), event({ timestamp: 9e15 })];
    const raw = Buffer.from(encodeVisitRecord([good, bad, late]));
    // A producer that skipped the schema: the second event's code is not a short code.
    raw.write('../', raw.indexOf('abc'), 'latin1');
    const record = message(raw);
    const plan = planBatch(fromKafka([record]), enrich);
    expect(plan.visits.map((row) => row.id)).toEqual([good.id]);
    expect(
      plan.rejected.map(({ origin, part, reason }) => [
        origin,
        part?.index,
        part?.count,
        part?.event.id,
        part?.event.urlID,
        reason.split(':')[0],
      ]),
    ).toEqual([
      [record, 2, 3, bad.id, '../', 'urlID'],
      [record, 3, 3, late.id, late.urlID, 'timestamp'],
    ]);
  });

  it('sets aside a record that cannot be read whole, with the reason, keeping the rest', () => {
    const good = event();
    const raw = encodeVisitRecord([event(), event()]);
    const truncated = message(raw.subarray(0, raw.length - 5));
    const unknown = message(Buffer.concat([Buffer.from([0, 7]), raw.subarray(2)]));
    const plan = planBatch(fromKafka([truncated, message(JSON.stringify(good)), unknown]), enrich);
    expect(plan.visits.map((row) => row.id)).toEqual([good.id]);
    expect(plan.rejected).toEqual([
      { origin: truncated, reason: 'truncated record: event 2 of 2' },
      { origin: unknown, reason: 'unknown record version 7' },
    ]);
  });

  it('gives the referrers breakdown a host, (direct) or (unknown)', () => {
    const plan = planBatch(
      fromKafka(
        [null, '', 'https://News.Example.org/a?b', 'android-app://com.slack/', 'not a url'].map(
          (referrer) => message(JSON.stringify(event({ referrer }))),
        ),
      ),
      enrich,
    );
    expect(plan.visits.map((row) => row.referrerHost)).toEqual([
      '(direct)',
      '(direct)',
      'news.example.org',
      'com.slack',
      '(unknown)',
    ]);
  });
});

describe('utcDay', () => {
  it('answers the UTC day of each timestamp, days alternating or not', () => {
    const at = (iso: string) => utcDay(Date.parse(iso));
    expect(at('2026-11-23T23:59:59.999Z')).toBe('2026-11-23');
    expect(at('2026-11-24T00:00:00.000Z')).toBe('2026-11-24');
    expect(at('2026-11-23T00:00:00.000Z')).toBe('2026-11-23');
    expect(at('2026-11-23T12:00:00.000+14:00')).toBe('2026-11-22');
    expect(at('1970-01-01T00:00:00.001Z')).toBe('1970-01-01');
  });
});

describe('unstorable', () => {
  it('takes timestamps to the end of the year 9999 and refuses later ones', () => {
    const at = (iso: string) => unstorable(event({ timestamp: Date.parse(iso) }));
    expect(at('9999-12-31T23:59:59.999Z')).toBeUndefined();
    expect(at('+010000-01-01T00:00:00.000Z')).toBe('timestamp: out of range');
  });
});
