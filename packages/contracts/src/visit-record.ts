import {
  checkVisitEvent,
  isPlainlyValid,
  VISIT_EVENT_SCHEMA_VERSION,
  type VisitEvent,
  type VisitEventParse,
} from './visits';

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

/**
 * Writes an event's fields after its id, which the caller has written at `at` -
 * VISIT_ID_BYTES; answers where the next event goes. The caller has checked the room with
 * visitBytesBound.
 */
export function writeVisitFields(
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
 * Visits written one after another in a record's event layout, without the record's header:
 * how the redirect service queues them (written once, when the redirect is answered).
 */
export interface EncodedVisits {
  bytes: Buffer;
  count: number;
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
    this.offset = writeVisitFields(
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
export interface RecordedVisit {
  id: string;
  urlID: string;
  timestamp: number;
  ip: string;
  userAgent: string;
  referrer: string | null;
}

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

/**
 * A recorded event checked against the schema a one-event message is held to: the same
 * outcome and reason as visitEventSchema's parse, which runs only for events the cheaper
 * isPlainlyValid does not vouch for (the consumer checks every event it reads).
 */
export function checkRecordedVisit(recorded: RecordedVisit): VisitEventParse {
  if (isPlainlyValid(recorded)) {
    const { id, urlID, timestamp, ip, userAgent, referrer } = recorded;
    return {
      ok: true,
      event: {
        schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
        id,
        urlID,
        timestamp,
        ip,
        userAgent,
        referrer,
      },
    };
  }
  return checkVisitEvent({ schemaVersion: VISIT_EVENT_SCHEMA_VERSION, ...recorded });
}

/** Whether a message value is a packed record rather than one JSON event. */
export function isVisitRecord(raw: Buffer | null): raw is Buffer {
  return raw !== null && raw.length > 0 && raw[0] === VISIT_RECORD_MARKER;
}
