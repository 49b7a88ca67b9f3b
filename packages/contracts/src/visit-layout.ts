// The visit codec's event layout: writing visits into a buffer, and walking them there.
import type { VisitTrace } from './visit-traces';

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

/** The record's header: marker, version, count. */
export const VISIT_RECORD_HEADER_BYTES = 6;
const FIXED_EVENT_BYTES = 16 + 8 + 4 * 2;
/** The text length that stands for null (a referrer's). */
export const VISIT_NULL_TEXT = 0xffff;
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

export function readUuid(buffer: Buffer, offset: number): string {
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

/** Writes an event's fields after its id; answers where the next event goes. */
export function writeFields(
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
    ? buffer.writeUInt16BE(VISIT_NULL_TEXT, next)
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

/**
 * Where the event written at `at` ends, in bytes written by this module (not for foreign
 * bytes); -1 when it runs past `end` (a torn last write).
 */
export function encodedVisitEnd(bytes: Buffer, at: number, end = bytes.length): number {
  let next = at + VISIT_ID_BYTES + 8;
  for (let text = 0; text < 4; text++) {
    if (next + 2 > end) return -1;
    const length = bytes.readUInt16BE(next);
    next += 2 + (length === VISIT_NULL_TEXT ? 0 : length);
  }
  return next <= end ? next : -1;
}

/** The urlID of the event written at `at` (a short code: ASCII). */
export function encodedVisitUrlID(bytes: Buffer, at: number): string {
  const start = at + VISIT_ID_BYTES + 8;
  return bytes.toString('latin1', start + 2, start + 2 + bytes.readUInt16BE(start));
}
