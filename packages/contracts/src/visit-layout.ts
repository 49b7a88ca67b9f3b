// The visit codec's event layout: writing visits into a buffer, and walking them there.
import type { VisitTrace } from './visit-traces';
import type { VisitUtm } from './visits';

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
 *          and, only when the urlID's length has its top bit (VISIT_UTM_FLAG) set:
 *          u16 + n   utm_source, utm_medium, utm_campaign, UTF-8 each; 0xFFFF means none
 * Nothing may follow the last event. Each event is checked against visitEventSchema when read,
 * as a one-event message is, so a record carries exactly what a message of each event would.
 *
 * The campaign fields (VISIT_UTM_FLAG) are read by every release since they were added, but
 * the release before cannot read them: until the next release, records sent to Kafka keep
 * them out of the value, in the record's utm header (visit-utm.ts), and only the redirect's
 * own queue, spool and the embedded mode's bus carry them in the events' bytes.
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
/** Set on the urlID's length: the event's campaign fields follow its referrer. */
export const VISIT_UTM_FLAG = 0x8000;
/** Where the urlID's length is, from the event's start. */
const URL_ID_AT = 16 + 8;
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
  utm?: VisitUtm,
): number {
  const bound =
    FIXED_EVENT_BYTES +
    utf8Bound(urlID.length + ip.length + userAgent.length + (referrer?.length ?? 0));
  if (utm === undefined) return bound;
  return (
    bound +
    3 * 2 +
    utf8Bound(
      (utm.utmSource?.length ?? 0) + (utm.utmMedium?.length ?? 0) + (utm.utmCampaign?.length ?? 0),
    )
  );
}

/** Whether a visit has any campaign field (only then are they written). */
export function hasUtm(utm: VisitUtm | undefined): utm is VisitUtm {
  return (
    utm !== undefined &&
    (utm.utmSource !== undefined || utm.utmMedium !== undefined || utm.utmCampaign !== undefined)
  );
}

function writeOptionalText(buffer: Buffer, at: number, value: string | undefined | null): number {
  return value == null ? buffer.writeUInt16BE(VISIT_NULL_TEXT, at) : writeText(buffer, at, value);
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
  utm?: VisitUtm,
): number {
  let next = buffer.writeDoubleBE(timestamp, at);
  const urlIDAt = next;
  next = writeText(buffer, next, urlID);
  next = writeText(buffer, next, ip);
  next = writeText(buffer, next, userAgent);
  next = writeOptionalText(buffer, next, referrer);
  if (!hasUtm(utm)) return next;
  buffer[urlIDAt] = buffer[urlIDAt]! | (VISIT_UTM_FLAG >> 8);
  next = writeOptionalText(buffer, next, utm.utmSource);
  next = writeOptionalText(buffer, next, utm.utmMedium);
  return writeOptionalText(buffer, next, utm.utmCampaign);
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
  utm?: VisitUtm,
): number {
  ids.copy(buffer, at, idAt, idAt + VISIT_ID_BYTES);
  return writeFields(buffer, at + VISIT_ID_BYTES, timestamp, urlID, ip, userAgent, referrer, utm);
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
  return encodedVisitTexts(bytes, at, end).end;
}

/**
 * Where the event written at `at` ends (`end`), and where its fields the release before the
 * campaign fields reads end (`plainEnd`: its end, unless it has campaign fields); -1 for
 * both when it runs past `limit`.
 */
export function encodedVisitTexts(
  bytes: Buffer,
  at: number,
  limit = bytes.length,
): { end: number; plainEnd: number } {
  const torn = { end: -1, plainEnd: -1 };
  let next = at + URL_ID_AT;
  if (next + 2 > limit) return torn;
  const texts = bytes.readUInt16BE(next) & VISIT_UTM_FLAG ? 7 : 4;
  let plainEnd = -1;
  for (let text = 0; text < texts; text++) {
    if (next + 2 > limit) return torn;
    const length = bytes.readUInt16BE(next);
    next += 2 + (length === VISIT_NULL_TEXT ? 0 : text === 0 ? length & ~VISIT_UTM_FLAG : length);
    if (text === 3) plainEnd = next;
  }
  return next <= limit ? { end: next, plainEnd } : torn;
}

/** The urlID of the event written at `at` (a short code: ASCII). */
export function encodedVisitUrlID(bytes: Buffer, at: number): string {
  const start = at + URL_ID_AT;
  const length = bytes.readUInt16BE(start) & ~VISIT_UTM_FLAG;
  return bytes.toString('latin1', start + 2, start + 2 + length);
}
