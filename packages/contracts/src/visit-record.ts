// The packed record: building one from visits, and reading one back without its schema check.
import type { VisitEvent, VisitFields } from './visits';
import { readUtmTexts, visitUtmEntry } from './visit-utm';
import {
  readUuid,
  visitBytesBound,
  VISIT_ID_BYTES,
  VISIT_NULL_TEXT,
  VISIT_RECORD_HEADER_BYTES,
  VISIT_RECORD_MARKER,
  VISIT_RECORD_MAX_BYTES,
  VISIT_RECORD_MAX_EVENTS,
  VISIT_RECORD_VERSION,
  VISIT_UTM_FLAG,
  encodedVisitTexts,
  writeFields,
  writeUuid,
  type EncodedVisits,
} from './visit-layout';

/** A record of encoded visits, as any consumer reads it. */
export function visitRecordOf(visits: EncodedVisits): Buffer {
  if (visits.count < 1 || visits.count > VISIT_RECORD_MAX_EVENTS)
    throw new RangeError(`a visit record holds 1 to ${VISIT_RECORD_MAX_EVENTS} events`);
  const header = Buffer.allocUnsafe(VISIT_RECORD_HEADER_BYTES);
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
  private offset = VISIT_RECORD_HEADER_BYTES;
  private events = 0;
  /** The utm header's entries (addPlain), and their bytes with a comma each. */
  private readonly utm: string[] = [];
  private utmBytes = 0;

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
    const bound = visitBytesBound(event.urlID, event.ip, event.userAgent, event.referrer, event);
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
      event,
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

  /**
   * Adds an event already encoded at `start` in the layout every reader of the release before
   * reads: its campaign fields, if any, go to the record's utm header (utmHeader) instead of
   * its bytes, and count in the record's room. False when it does not fit.
   */
  addPlain(bytes: Buffer, start: number): boolean {
    const { end, plainEnd } = encodedVisitTexts(bytes, start);
    if (end === plainEnd) return this.addEncoded(bytes, start, end);
    const entry = visitUtmEntry(this.events, readUtmTexts(bytes, plainEnd));
    const entryBytes = Buffer.byteLength(entry);
    // Its bytes, its entry and a comma; the header's brackets.
    if (!this.room(plainEnd - start + entryBytes + 2)) return false;
    const urlIDAt = this.offset + VISIT_ID_BYTES + 8;
    this.offset += bytes.copy(this.buffer, this.offset, start, plainEnd);
    this.buffer[urlIDAt] = this.buffer[urlIDAt]! & ~(VISIT_UTM_FLAG >> 8);
    this.utm.push(entry);
    this.utmBytes += entryBytes + 1;
    this.events++;
    return true;
  }

  /** The record's utm header (visit-utm.ts), when an event added by addPlain had any. */
  get utmHeader(): string | undefined {
    return this.utm.length === 0 ? undefined : `[${this.utm.join(',')}]`;
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
    if (
      this.events < VISIT_RECORD_MAX_EVENTS &&
      this.offset + this.utmBytes + bytes <= this.capacity
    )
      return true;
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
  return {
    bytes: encodeVisitRecord(events).subarray(VISIT_RECORD_HEADER_BYTES),
    count: events.length,
  };
}

/** An event as a record holds it, before its schema check. */
export type RecordedVisit = VisitFields;

type VisitRecordRead = { ok: true; events: RecordedVisit[] } | { ok: false; reason: string };

/**
 * Reads a record's events without checking them; a record that is truncated, oversized, of an
 * unknown version or followed by stray bytes is refused whole, with the reason. Never throws.
 */
export function readVisitRecord(raw: Buffer): VisitRecordRead {
  if (raw.length < VISIT_RECORD_HEADER_BYTES || raw[0] !== VISIT_RECORD_MARKER)
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
  let at = VISIT_RECORD_HEADER_BYTES;
  let flagged = false;
  const text = (urlID = false): string | null | undefined => {
    if (at + 2 > raw.length) return undefined;
    let length = raw.readUInt16BE(at);
    if (urlID && length !== VISIT_NULL_TEXT && (length & VISIT_UTM_FLAG) !== 0) {
      flagged = true;
      length &= ~VISIT_UTM_FLAG;
    }
    at += 2;
    if (length === VISIT_NULL_TEXT) return null;
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
    flagged = false;
    const urlID = text(true);
    const ip = text();
    const userAgent = text();
    const referrer = text();
    if (urlID == null || ip == null || userAgent == null || referrer === undefined)
      return urlID === null || ip === null || userAgent === null
        ? { ok: false, reason: `event ${index + 1} of ${count}: null text where text is required` }
        : truncated;
    const event: RecordedVisit = { id, urlID, timestamp, ip, userAgent, referrer };
    if (flagged) {
      const utmSource = text();
      const utmMedium = text();
      const utmCampaign = text();
      if (utmSource === undefined || utmMedium === undefined || utmCampaign === undefined)
        return truncated;
      if (utmSource !== null) event.utmSource = utmSource;
      if (utmMedium !== null) event.utmMedium = utmMedium;
      if (utmCampaign !== null) event.utmCampaign = utmCampaign;
    }
    events.push(event);
  }
  if (at !== raw.length)
    return { ok: false, reason: `${raw.length - at} stray bytes after event ${count}` };
  return { ok: true, events };
}

/** Whether a message value is a packed record rather than one JSON event. */
export function isVisitRecord(raw: Buffer | null): raw is Buffer {
  return raw !== null && raw.length > 0 && raw[0] === VISIT_RECORD_MARKER;
}
