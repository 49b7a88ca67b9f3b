import { z } from 'zod';
import { SHORT_CODE_PATTERN } from './links';

export const VISITS_TOPIC = 'visits';
export const VISITS_DLQ_TOPIC = 'visits.dlq';
export const VISIT_EVENT_SCHEMA_VERSION = 1;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text PostgreSQL can store as it was sent: no NUL (a text column refuses it, and with it the
 * whole batch) and no lone surrogate (UTF-8 cannot encode one; the driver would silently
 * store U+FFFD instead).
 */
export const storableText = () =>
  z
    .string()
    .refine((value) => !value.includes('\u0000'), { message: 'contains a NUL character' })
    .refine((value) => !LONE_SURROGATE.test(value), { message: 'contains a lone surrogate' });

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
  ip: storableText().min(1).max(64),
  userAgent: storableText().max(1024),
  referrer: storableText().max(2048).nullable(),
});
export type VisitEvent = z.infer<typeof visitEventSchema>;

export type VisitEventParse = { ok: true; event: VisitEvent } | { ok: false; reason: string };

/** Parses a raw Kafka message value; never throws. */
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
