// The utm header beside a packed record: the campaign fields of its visits.
import { isStorableText, UTM_FIELDS, VISIT_TEXT_MAX, type VisitUtm } from './visits';
import { VISIT_NULL_TEXT, VISIT_RECORD_MAX_BYTES } from './visit-layout';

/**
 * The Kafka header that carries the campaign fields (utm_source, utm_medium, utm_campaign) of
 * a record's visits, while the release before them may still read the record: it reads only
 * the value, and stores the visits without them. A JSON array of `[index, source, medium,
 * campaign]`, an entry per visit that has any (index from 0 in the record, null for a field
 * it lacks).
 */
export const VISIT_UTM_HEADER = 'visit-utm';

/** The three optional texts written at `at` (visit-layout.ts's campaign fields). */
export function readUtmTexts(bytes: Buffer, at: number): VisitUtm {
  const utm: VisitUtm = {};
  let next = at;
  for (const field of UTM_FIELDS) {
    const length = bytes.readUInt16BE(next);
    next += 2;
    if (length === VISIT_NULL_TEXT) continue;
    utm[field] = bytes.toString('utf8', next, next + length);
    next += length;
  }
  return utm;
}

/** One visit's entry of the utm header. */
export function visitUtmEntry(index: number, utm: VisitUtm): string {
  return JSON.stringify([
    index,
    utm.utmSource ?? null,
    utm.utmMedium ?? null,
    utm.utmCampaign ?? null,
  ]);
}

const fieldOf = (value: unknown): string | undefined =>
  typeof value === 'string' && isStorableText(value, 1, VISIT_TEXT_MAX.utm) ? value : undefined;

/**
 * The campaign fields a record's utm header holds, by the visit's index in the record (of
 * `count`). Whatever the header is (absent, repeated, not JSON, too long, hostile), this never
 * throws: entries and values that are not what encodeVisitUtm writes are skipped, so a visit
 * is stored without them rather than refused.
 */
export function readVisitUtm(header: unknown, count: number): Array<VisitUtm | undefined> {
  const utm: Array<VisitUtm | undefined> = [];
  const value = Array.isArray(header) ? (header as unknown[])[0] : header;
  let text: string;
  if (typeof value === 'string') text = value;
  else if (Buffer.isBuffer(value)) text = value.toString('utf8');
  else return utm;
  if (text.length > VISIT_RECORD_MAX_BYTES) return utm;
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    return utm;
  }
  if (!Array.isArray(entries)) return utm;
  for (const entry of entries as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 4) continue;
    const index: unknown = entry[0];
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) continue;
    const fields: VisitUtm = {};
    UTM_FIELDS.forEach((field, at) => {
      const read = fieldOf(entry[at + 1]);
      if (read !== undefined) fields[field] = read;
    });
    utm[index as number] = fields;
  }
  return utm;
}
