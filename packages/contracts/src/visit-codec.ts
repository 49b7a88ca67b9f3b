import {
  checkVisitEvent,
  checkVisitFields,
  VISIT_EVENT_SCHEMA_VERSION,
  type VisitEvent,
  type VisitEventParse,
  type VisitFields,
} from './visits';

/*
 * The visit codec: the one place that knows a visit's bytes, in each of its forms.
 *
 * - The packed record, what the redirect service publishes: many visits in one message.
 *   The redirect's queue writes each visit into its buffer with appendVisit as the redirect
 *   is answered; the publishers gather them into records (VisitRecordBuilder, visitRecordOf).
 * - The one-event message, JSON: what earlier versions published, still read from the topic,
 *   and what an event of a record is dead-lettered as (encodeVisitEvent).
 *
 * decodeVisits reads either form and checks every event against visitEventSchema.
 *
 * - The trace header (VISIT_TRACES_HEADER), beside a packed record when tracing is on: the
 *   trace contexts of the redirect requests whose visits the record carries, so the consumer's
 *   store span can link to them (encodeVisitTraces, readVisitTraces). A record is read the
 *   same with it or without it.
 */

/**
 * Many visits in one Kafka record: the redirect service packs the visits of one partition into
 * records of this format, so the Kafka client's cost per message is paid once per record.
 *
 * Layout (big-endian):
 *   0      u8    0x00, the marker: a one-event message is JSON and starts with `{`
 *   1      u8    format version (VISIT_RECORD_VERSION)
 *   2      u32   number of events, 1..VISIT_RECORD_MAX_EVENTS
 *   6      the events, one after another:
 *          16 bytes  id (the UUID's bytes)
 *          f64       timestamp, milliseconds since the epoch
 *          u16 + n   urlID, UTF-8
 *          u16 + n   ip, UTF-8
 *          u16 + n   userAgent, UTF-8
 *          u16 + n   referrer, UTF-8; the length 0xFFFF means null
 * Nothing may follow the last event. Each event is checked against visitEventSchema when read,
 * as a one-event message is, so a record carries exactly what a message of each event would.
 */
export const VISIT_RECORD_MARKER = 0x00;
export const VISIT_RECORD_VERSION = 1;
export const VISIT_RECORD_MAX_EVENTS = 20_000;
/** Under Kafka's default largest message (message.max.bytes, 1 MiB), with room for framing. */
export const VISIT_RECORD_MAX_BYTES = 1_000_000;

const HEADER_BYTES = 6;
const FIXED_EVENT_BYTES = 16 + 8 + 4 * 2;
const NULL_TEXT = 0xffff;
/** The most bytes a string of `length` UTF-16 units takes in UTF-8. */
const utf8Bound = (length: number) => length * 3;

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) {
  HEX_VALUE['0123456789abcdef'.charCodeAt(digit)] = digit;
  HEX_VALUE['0123456789ABCDEF'.charCodeAt(digit)] = digit;
}

/** Writes a UUID's 16 bytes at `offset`; false (nothing sensible written) if it is not one. */
export function writeUuid(buffer: Buffer, offset: number, uuid: string): boolean {
  if (uuid.length !== 36) return false;
  let at = offset;
  for (let i = 0; i < 36; i += 2) {
    if (i === 8 || i === 13 || i === 18 || i === 23) i++;
    const high = HEX_VALUE[uuid.charCodeAt(i) & 127]!;
    const low = HEX_VALUE[uuid.charCodeAt(i + 1) & 127]!;
    if (high < 0 || low < 0) return false;
    buffer[at++] = (high << 4) | low;
  }
  return true;
}

function readUuid(buffer: Buffer, offset: number): string {
  const hex = buffer.toString('hex', offset, offset + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An event's id comes first in its bytes: its UUID's 16 bytes. */
export const VISIT_ID_BYTES = 16;

/** The most bytes one event can take (each text within what UTF-8 may make of it). */
export function visitBytesBound(
  urlID: string,
  ip: string,
  userAgent: string,
  referrer: string | null,
): number {
  return (
    FIXED_EVENT_BYTES +
    utf8Bound(urlID.length + ip.length + userAgent.length + (referrer?.length ?? 0))
  );
}

function writeText(buffer: Buffer, at: number, value: string): number {
  const length = buffer.write(value, at + 2, 'utf8');
  buffer.writeUInt16BE(length, at);
  return at + 2 + length;
}

function writeFields(
  buffer: Buffer,
  at: number,
  timestamp: number,
  urlID: string,
  ip: string,
  userAgent: string,
  referrer: string | null,
): number {
  let next = buffer.writeDoubleBE(timestamp, at);
  next = writeText(buffer, next, urlID);
  next = writeText(buffer, next, ip);
  next = writeText(buffer, next, userAgent);
  return referrer === null
    ? buffer.writeUInt16BE(NULL_TEXT, next)
    : writeText(buffer, next, referrer);
}

/**
 * Appends a visit at `at` to the visits being written into `buffer` (a run of EncodedVisits);
 * answers where the next one goes. Its id is the VISIT_ID_BYTES at `idAt` in `ids` (a UUID's
 * bytes). Nothing is made per visit but its bytes: the caller has checked the room with
 * visitBytesBound and keeps the texts within the schema's limits.
 */
export function appendVisit(
  buffer: Buffer,
  at: number,
  ids: Buffer,
  idAt: number,
  timestamp: number,
  urlID: string,
  ip: string,
  userAgent: string,
  referrer: string | null,
): number {
  ids.copy(buffer, at, idAt, idAt + VISIT_ID_BYTES);
  return writeFields(buffer, at + VISIT_ID_BYTES, timestamp, urlID, ip, userAgent, referrer);
}

/**
 * Visits written one after another in a record's event layout, without the record's header:
 * how the redirect service queues them (written once, when the redirect is answered).
 */
export interface EncodedVisits {
  bytes: Buffer;
  count: number;
  /**
   * Each visit's trace context, by its index (none for a visit not traced): present only
   * when tracing is on and some visit of the run was traced.
   */
  traces?: ReadonlyArray<VisitTrace | undefined>;
}

/** Where the event written at `at` ends, in bytes written by this module (not for foreign bytes). */
export function encodedVisitEnd(bytes: Buffer, at: number): number {
  let next = at + VISIT_ID_BYTES + 8;
  for (let text = 0; text < 4; text++) {
    const length = bytes.readUInt16BE(next);
    next += 2 + (length === NULL_TEXT ? 0 : length);
  }
  return next;
}

/** The urlID of the event written at `at` (a short code: ASCII). */
export function encodedVisitUrlID(bytes: Buffer, at: number): string {
  const start = at + VISIT_ID_BYTES + 8;
  return bytes.toString('latin1', start + 2, start + 2 + bytes.readUInt16BE(start));
}

/** A record of encoded visits, as any consumer reads it. */
export function visitRecordOf(visits: EncodedVisits): Buffer {
  if (visits.count < 1 || visits.count > VISIT_RECORD_MAX_EVENTS)
    throw new RangeError(`a visit record holds 1 to ${VISIT_RECORD_MAX_EVENTS} events`);
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header[0] = VISIT_RECORD_MARKER;
  header[1] = VISIT_RECORD_VERSION;
  header.writeUInt32BE(visits.count, 2);
  return Buffer.concat([header, visits.bytes]);
}

/**
 * Packs visit events into one record of at most `capacity` bytes. Events are expected to have
 * passed visitEventSchema (the redirect service checks each before it leaves).
 */
export class VisitRecordBuilder {
  private readonly buffer: Buffer;
  private readonly capacity: number;
  private offset = HEADER_BYTES;
  private events = 0;

  /**
   * `space`: the most bytes the record may take, or a buffer to build it in (kept by the
   * caller and used again once finish() has copied the record out of it).
   */
  constructor(space: number | Buffer = VISIT_RECORD_MAX_BYTES) {
    this.buffer = typeof space === 'number' ? Buffer.allocUnsafe(space) : space;
    this.capacity = Math.min(this.buffer.length, VISIT_RECORD_MAX_BYTES);
  }

  get count(): number {
    return this.events;
  }

  /** Adds an event; false when it does not fit (this record is full: finish it). */
  add(event: VisitEvent): boolean {
    const bound = visitBytesBound(event.urlID, event.ip, event.userAgent, event.referrer);
    if (!this.room(bound)) return false;
    if (!writeUuid(this.buffer, this.offset, event.id))
      throw new TypeError('visit event id is not a UUID');
    this.offset = writeFields(
      this.buffer,
      this.offset + VISIT_ID_BYTES,
      event.timestamp,
      event.urlID,
      event.ip,
      event.userAgent,
      event.referrer,
    );
    this.events++;
    return true;
  }

  /** Adds an event already encoded (bytes start to end); false when it does not fit. */
  addEncoded(bytes: Buffer, start: number, end: number): boolean {
    if (!this.room(end - start)) return false;
    this.offset += bytes.copy(this.buffer, this.offset, start, end);
    this.events++;
    return true;
  }

  /** The record, in a buffer of its own size; the builder is spent. */
  finish(): Buffer {
    if (this.events === 0) throw new RangeError('an empty visit record');
    this.buffer[0] = VISIT_RECORD_MARKER;
    this.buffer[1] = VISIT_RECORD_VERSION;
    this.buffer.writeUInt32BE(this.events, 2);
    return Buffer.from(this.buffer.subarray(0, this.offset));
  }

  private room(bytes: number): boolean {
    if (this.events < VISIT_RECORD_MAX_EVENTS && this.offset + bytes <= this.capacity) return true;
    if (this.events === 0) throw new RangeError('a visit event larger than a record');
    return false;
  }
}

/** Packs events into one record (tests, tools); VisitRecordBuilder for many. */
export function encodeVisitRecord(events: readonly VisitEvent[]): Buffer {
  const builder = new VisitRecordBuilder();
  for (const event of events) {
    if (!builder.add(event)) throw new RangeError('visit events larger than a record');
  }
  return builder.finish();
}

/** Events as a run of encoded visits, as the redirect service queues them (tests, tools). */
export function encodeVisits(events: readonly VisitEvent[]): EncodedVisits {
  return { bytes: encodeVisitRecord(events).subarray(HEADER_BYTES), count: events.length };
}

/** An event as a record holds it, before its schema check. */
export type RecordedVisit = VisitFields;

export type VisitRecordRead = { ok: true; events: RecordedVisit[] } | { ok: false; reason: string };

/**
 * Reads a record's events without checking them; a record that is truncated, oversized, of an
 * unknown version or followed by stray bytes is refused whole, with the reason. Never throws.
 */
export function readVisitRecord(raw: Buffer): VisitRecordRead {
  if (raw.length < HEADER_BYTES || raw[0] !== VISIT_RECORD_MARKER)
    return { ok: false, reason: 'truncated record: no header' };
  if (raw[1] !== VISIT_RECORD_VERSION)
    return { ok: false, reason: `unknown record version ${raw[1]}` };
  if (raw.length > VISIT_RECORD_MAX_BYTES)
    return { ok: false, reason: `oversized record: ${raw.length} bytes` };
  const count = raw.readUInt32BE(2);
  if (count === 0) return { ok: false, reason: 'empty record' };
  if (count > VISIT_RECORD_MAX_EVENTS)
    return { ok: false, reason: `oversized record: ${count} events` };
  const events: RecordedVisit[] = [];
  let at = HEADER_BYTES;
  const text = (): string | null | undefined => {
    if (at + 2 > raw.length) return undefined;
    const length = raw.readUInt16BE(at);
    at += 2;
    if (length === NULL_TEXT) return null;
    if (at + length > raw.length) return undefined;
    const value = raw.toString('utf8', at, at + length);
    at += length;
    return value;
  };
  for (let index = 0; index < count; index++) {
    const truncated = {
      ok: false as const,
      reason: `truncated record: event ${index + 1} of ${count}`,
    };
    if (at + 24 > raw.length) return truncated;
    const id = readUuid(raw, at);
    const timestamp = raw.readDoubleBE(at + 16);
    at += 24;
    const urlID = text();
    const ip = text();
    const userAgent = text();
    const referrer = text();
    if (urlID == null || ip == null || userAgent == null || referrer === undefined)
      return urlID === null || ip === null || userAgent === null
        ? { ok: false, reason: `event ${index + 1} of ${count}: null text where text is required` }
        : truncated;
    events.push({ id, urlID, timestamp, ip, userAgent, referrer });
  }
  if (at !== raw.length)
    return { ok: false, reason: `${raw.length - at} stray bytes after event ${count}` };
  return { ok: true, events };
}

/** Whether a message value is a packed record rather than one JSON event. */
export function isVisitRecord(raw: Buffer | null): raw is Buffer {
  return raw !== null && raw.length > 0 && raw[0] === VISIT_RECORD_MARKER;
}

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

/** Decodes a message value in either form (a packed record, or one JSON event); never throws. */
export function decodeVisits(raw: Buffer | string | null): VisitMessage {
  if (typeof raw === 'string' || !isVisitRecord(raw)) {
    const parsed = parseVisitEvent(raw);
    return parsed.ok ? { ok: true, events: [parsed] } : parsed;
  }
  const record = readVisitRecord(raw);
  if (!record.ok) return record;
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
}: VisitFields): Buffer {
  return Buffer.from(
    JSON.stringify({
      schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
      id,
      urlID,
      timestamp,
      ip,
      userAgent,
      referrer,
    }),
  );
}

/**
 * The trace context of the redirect request that made a visit (W3C Trace Context: ids in
 * lowercase hex, flags as a number): the same shape as OpenTelemetry's span context, without
 * depending on it.
 */
export interface VisitTrace {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/**
 * The Kafka header that carries the trace contexts of a record's visits: W3C `traceparent`
 * values, comma-separated, at most VISIT_TRACES_MAX of them (OpenTelemetry's default limit of
 * links per span; visits past it are stored as any other, untraced).
 */
export const VISIT_TRACES_HEADER = 'visit-traces';
export const VISIT_TRACES_MAX = 128;

/** The length of one traceparent: `00-` 32 hex `-` 16 hex `-` 2 hex. */
const TRACEPARENT_LENGTH = 55;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/** The trace header's value for the traces of one record (the first VISIT_TRACES_MAX). */
export function encodeVisitTraces(traces: readonly VisitTrace[]): string {
  const parents: string[] = [];
  for (const { traceId, spanId, traceFlags } of traces) {
    if (parents.length === VISIT_TRACES_MAX) break;
    parents.push(`00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`);
  }
  return parents.join(',');
}

/**
 * The trace contexts a record's trace header holds. Whatever the header is (absent, repeated,
 * not text, too long, hostile), this never throws: entries that are not a version-00
 * traceparent with non-zero ids are skipped, and no more than VISIT_TRACES_MAX are read.
 */
export function readVisitTraces(header: unknown): VisitTrace[] {
  const values = Array.isArray(header) ? (header as unknown[]) : [header];
  const traces: VisitTrace[] = [];
  // Never more text than the most entries it may hold: a huge header costs no more to read.
  const most = VISIT_TRACES_MAX * (TRACEPARENT_LENGTH + 1);
  for (const value of values) {
    let text: string;
    if (typeof value === 'string') text = value.slice(0, most);
    else if (Buffer.isBuffer(value)) text = value.toString('latin1', 0, most);
    else continue;
    for (const entry of text.split(',', VISIT_TRACES_MAX)) {
      if (traces.length === VISIT_TRACES_MAX) return traces;
      const match = TRACEPARENT.exec(entry.trim());
      if (match === null || ZEROS.test(match[1]!) || ZEROS.test(match[2]!)) continue;
      traces.push({ traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16) });
    }
  }
  return traces;
}
