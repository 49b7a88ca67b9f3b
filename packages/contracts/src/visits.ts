import { z } from 'zod';
import { SHORT_CODE_PATTERN } from './links';

export const VISITS_TOPIC = 'visits';
export const VISITS_DLQ_TOPIC = 'visits.dlq';
export const VISIT_EVENT_SCHEMA_VERSION = 1;

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
  ip: z.string().min(1).max(64),
  userAgent: z.string().max(1024),
  referrer: z.string().max(2048).nullable(),
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
  const result = visitEventSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    return {
      ok: false,
      reason: issue ? `${issue.path.join('.') || 'event'}: ${issue.message}` : 'invalid event',
    };
  }
  return { ok: true, event: result.data };
}

/** Validates before publishing, so a producer bug never reaches the topic. */
export function serializeVisitEvent(event: VisitEvent): string {
  return JSON.stringify(visitEventSchema.parse(event));
}
