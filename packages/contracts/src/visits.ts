import { z } from 'zod';
import { SHORT_CODE_PATTERN } from './links';

export const VISITS_TOPIC = 'visits';
export const VISITS_DLQ_TOPIC = 'visits.dlq';
export const VISIT_EVENT_SCHEMA_VERSION = 1;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const hasNoNul = (value: string) => !value.includes('\u0000');
const hasNoLoneSurrogate = (value: string) => !LONE_SURROGATE.test(value);

/**
 * Text PostgreSQL can store as it was sent: no NUL (a text column refuses it, and with it the
 * whole batch) and no lone surrogate (UTF-8 cannot encode one; the driver would silently
 * store U+FFFD instead).
 */
export const storableText = () =>
  z
    .string()
    .refine(hasNoNul, { message: 'contains a NUL character' })
    .refine(hasNoLoneSurrogate, { message: 'contains a lone surrogate' });

/** storableText's test, with its length limits, without building a parse (see isPlainlyValid). */
export function isStorableText(value: string, min: number, max: number): boolean {
  return value.length >= min && value.length <= max && hasNoNul(value) && hasNoLoneSurrogate(value);
}

/** The longest text of each field an event may carry, in UTF-16 units. */
export const VISIT_TEXT_MAX = { ip: 64, userAgent: 1024, referrer: 2048, utm: 100 } as const;
const {
  ip: IP_MAX,
  userAgent: USER_AGENT_MAX,
  referrer: REFERRER_MAX,
  utm: UTM_MAX,
} = VISIT_TEXT_MAX;

/** The campaign parameters a visit may carry, as the short link's query string named them. */
export const UTM_PARAMETERS = ['utm_source', 'utm_medium', 'utm_campaign'] as const;
export type UtmParameter = (typeof UTM_PARAMETERS)[number];
/** A visit's campaign fields (absent when the request named none). */
export const UTM_FIELDS = ['utmSource', 'utmMedium', 'utmCampaign'] as const;
export type UtmField = (typeof UTM_FIELDS)[number];
export type VisitUtm = Partial<Record<UtmField, string>>;

// C0 and C1 controls, and DEL, as every other text check here reads them.
const CONTROL = /\p{Cc}/gu;

/**
 * A campaign parameter as a visit keeps it: control characters dropped, cut to
 * VISIT_TEXT_MAX.utm (never inside a surrogate pair), trimmed; undefined when nothing is left.
 */
export function utmValue(raw: string | null | undefined): string | undefined {
  if (raw === null || raw === undefined || raw === '') return undefined;
  let value = raw.replace(CONTROL, '').trim();
  if (value.length > UTM_MAX) {
    const cut = value.charCodeAt(UTM_MAX - 1);
    value = value.slice(0, cut >= 0xd800 && cut <= 0xdbff ? UTM_MAX - 1 : UTM_MAX).trimEnd();
  }
  return value === '' || LONE_SURROGATE.test(value) ? undefined : value;
}

/**
 * One GET redirect, as the redirect service publishes it to Kafka (keyed by urlID) and the
 * analytics consumer parses it. `id` makes redelivery idempotent.
 */
export const visitEventSchema = z.object({
  schemaVersion: z.literal(VISIT_EVENT_SCHEMA_VERSION),
  id: z.uuid(),
  urlID: z.string().regex(SHORT_CODE_PATTERN),
  /** Milliseconds since the epoch, when the redirect was served. */
  timestamp: z.number().int().positive(),
  ip: storableText().min(1).max(IP_MAX),
  userAgent: storableText().max(USER_AGENT_MAX),
  referrer: storableText().max(REFERRER_MAX).nullable(),
  /** The short link's utm_source, utm_medium, utm_campaign, when its request named them. */
  utmSource: storableText().min(1).max(UTM_MAX).optional(),
  utmMedium: storableText().min(1).max(UTM_MAX).optional(),
  utmCampaign: storableText().min(1).max(UTM_MAX).optional(),
});
export type VisitEvent = z.infer<typeof visitEventSchema>;
/** An event's fields, as a packed record carries them (its format version stands for the schema's). */
export type VisitFields = Omit<VisitEvent, 'schemaVersion'>;

export type VisitEventParse = { ok: true; event: VisitEvent } | { ok: false; reason: string };

/**
 * The canonical form of a UUID (lowercase, as a packed record's reader writes it) that
 * visitEventSchema's z.uuid() accepts: versions 1 to 8, the RFC 9562 variant. (z.uuid() also
 * accepts the nil and max UUIDs and uppercase digits, which are left to the schema.)
 */
const PLAIN_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Whether an event certainly passes visitEventSchema, cheaper than its parse: a subset of what
 * the schema accepts (a spec proves it), the rest left to the schema to decide and name.
 */
function isPlainlyValid(event: VisitFields): boolean {
  return (
    PLAIN_UUID.test(event.id) &&
    SHORT_CODE_PATTERN.test(event.urlID) &&
    Number.isSafeInteger(event.timestamp) &&
    event.timestamp > 0 &&
    isStorableText(event.ip, 1, IP_MAX) &&
    isStorableText(event.userAgent, 0, USER_AGENT_MAX) &&
    (event.referrer === null || isStorableText(event.referrer, 0, REFERRER_MAX)) &&
    (event.utmSource === undefined || isStorableText(event.utmSource, 1, UTM_MAX)) &&
    (event.utmMedium === undefined || isStorableText(event.utmMedium, 1, UTM_MAX)) &&
    (event.utmCampaign === undefined || isStorableText(event.utmCampaign, 1, UTM_MAX))
  );
}

/** Checks a decoded event against the schema; never throws. */
export function checkVisitEvent(value: unknown): VisitEventParse {
  const result = visitEventSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    return {
      ok: false,
      reason: issue ? `${issue.path.join('.') || 'event'}: ${issue.message}` : 'invalid event',
    };
  }
  return { ok: true, event: result.data };
}

/**
 * An event's fields checked against the schema: the same outcome and reason as
 * visitEventSchema's parse, which runs only for fields the cheaper isPlainlyValid does not
 * vouch for (the consumer checks every event it reads).
 */
export function checkVisitFields(fields: VisitFields): VisitEventParse {
  if (isPlainlyValid(fields)) {
    const { id, urlID, timestamp, ip, userAgent, referrer } = fields;
    const event: VisitEvent = {
      schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
      id,
      urlID,
      timestamp,
      ip,
      userAgent,
      referrer,
    };
    if (fields.utmSource !== undefined) event.utmSource = fields.utmSource;
    if (fields.utmMedium !== undefined) event.utmMedium = fields.utmMedium;
    if (fields.utmCampaign !== undefined) event.utmCampaign = fields.utmCampaign;
    return { ok: true, event };
  }
  return checkVisitEvent({ schemaVersion: VISIT_EVENT_SCHEMA_VERSION, ...fields });
}
