import type { KafkaMessage } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { VISIT_EVENT_SCHEMA_VERSION, type VisitEvent } from '@shortener/contracts';
import { planBatch, type VisitEnrichment } from './visit-batch';

const enrich: VisitEnrichment = {
  userAgent: (userAgent) => ({ platform: `os(${userAgent})`, browser: `browser(${userAgent})` }),
  ipAddress: (ip) => `masked(${ip})`,
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
function message(value: string | null, key: string | null = 'AbC1234'): KafkaMessage {
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
        createdAt: '2026-11-23T10:00:00.000Z',
        ipAddress: 'masked(203.0.113.9)',
        platform: 'os(ua)',
        browser: 'browser(ua)',
        referrer: 'https://example.com/',
      },
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
    expect(plan.origins).toEqual([messages[1], messages[2]]);
    expect(plan.visits.map((row) => row.id)).toEqual(
      plan.origins.map((origin) => (JSON.parse(origin.value!.toString()) as VisitEvent).id),
    );
  });

  it('takes events handed over in this process as they are, with the same checks', () => {
    const good = event();
    const late = event({ timestamp: 9e15 });
    const plan = planBatch(
      [
        { event: good, origin: 'first' },
        { event: late, origin: 'second' },
        { event: good, origin: 'third' },
      ],
      enrich,
    );
    expect(plan.visits.map((row) => row.id)).toEqual([good.id]);
    expect(plan.origins).toEqual(['first']);
    expect(plan.rejected).toEqual([{ origin: 'second', reason: 'timestamp: out of range' }]);
    expect(plan.repeated).toBe(1);
  });
});
