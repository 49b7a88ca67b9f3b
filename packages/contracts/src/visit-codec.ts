import {
  checkVisitEvent,
  checkVisitFields,
  VISIT_EVENT_SCHEMA_VERSION,
  type VisitEventParse,
  type VisitFields,
} from './visits';
import { isVisitRecord, readVisitRecord, type RecordedVisit } from './visit-record';
import { readVisitUtm } from './visit-utm';

/*
 * The visit codec: the one place that knows a visit's bytes, in each of its forms.
 *
 * - The packed record, what the redirect service publishes: many visits in one message
 *   (visit-layout.ts: an event's bytes; visit-record.ts: the record around them).
 *   The redirect's queue writes each visit into its buffer with appendVisit as the redirect
 *   is answered; the publishers gather them into records (VisitRecordBuilder, visitRecordOf).
 * - The one-event message, JSON: what earlier versions published, still read from the topic,
 *   and what an event of a record is dead-lettered as (encodeVisitEvent).
 *
 * decodeVisits reads either form (this file) and checks every event against visitEventSchema.
 *
 * - The trace header (VISIT_TRACES_HEADER), beside a packed record when tracing is on: the
 *   trace contexts of the redirect requests whose visits the record carries, so the consumer's
 *   store span can link to them (visit-traces.ts). A record is read the same with it or
 *   without it.
 * - The utm header (VISIT_UTM_HEADER), beside a packed record one of whose visits has campaign
 *   fields: them, kept out of the value so the release before reads the record (visit-utm.ts).
 */

export * from './visit-layout';
export * from './visit-record';
export * from './visit-traces';
export * from './visit-utm';

/** Reads a one-event message (JSON) and checks it; never throws. */
export function parseVisitEvent(raw: Buffer | string | null): VisitEventParse {
  if (raw === null) return { ok: false, reason: 'empty message' };
  let json: unknown;
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  return checkVisitEvent(json);
}

/**
 * A message of the `visits` topic decoded: refused whole with the reason (a record that cannot
 * be read; a one-event message that is not JSON or fails the schema), or its events, each
 * checked against visitEventSchema. For a packed record, `recorded` holds each event as the
 * record held it, by index: what an event refused alone is dead-lettered as (encodeVisitEvent).
 */
export type VisitMessage =
  | { ok: false; reason: string }
  | { ok: true; events: VisitEventParse[]; recorded?: RecordedVisit[] };

/**
 * Decodes a message value in either form (a packed record, or one JSON event); never throws.
 * `utmHeader`: the record's utm header, if it came with one (its visits' campaign fields).
 */
export function decodeVisits(raw: Buffer | string | null, utmHeader?: unknown): VisitMessage {
  if (typeof raw === 'string' || !isVisitRecord(raw)) {
    const parsed = parseVisitEvent(raw);
    return parsed.ok ? { ok: true, events: [parsed] } : parsed;
  }
  const record = readVisitRecord(raw);
  if (!record.ok) return record;
  if (utmHeader !== undefined) {
    const utm = readVisitUtm(utmHeader, record.events.length);
    utm.forEach((fields, index) => {
      if (fields !== undefined) Object.assign(record.events[index]!, fields);
    });
  }
  return { ok: true, events: record.events.map(checkVisitFields), recorded: record.events };
}

/**
 * An event as a one-event message: the JSON form earlier versions published, and the form an
 * event of a record is dead-lettered in (read back as any other message).
 */
export function encodeVisitEvent({
  id,
  urlID,
  timestamp,
  ip,
  userAgent,
  referrer,
  utmSource,
  utmMedium,
  utmCampaign,
}: VisitFields): Buffer {
  // Campaign fields only when present (JSON leaves undefined out): the release before them
  // reads the message the same (its schema strips what it does not know).
  return Buffer.from(
    JSON.stringify({
      schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
      id,
      urlID,
      timestamp,
      ip,
      userAgent,
      referrer,
      utmSource,
      utmMedium,
      utmCampaign,
    }),
  );
}
