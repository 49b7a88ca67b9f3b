import { parseVisitEvent, type VisitEvent } from '@shortener/contracts';
import type { VisitRow } from '../visits/visits.repository';
import type { ParsedUserAgent } from './user-agent.parser';

/**
 * A visit event as a source received it: the bytes of a Kafka message, or an event handed over
 * in this process (already checked against the schema by the redirect service). `origin` is
 * what the source needs to answer for it: the Kafka message to dead-letter, say.
 */
export type Incoming<Origin> =
  { value: Buffer | null; origin: Origin } | { event: VisitEvent; origin: Origin };

/** An event that cannot be stored for its data (never for an outage), and why. */
export interface Unstored<Origin> {
  origin: Origin;
  reason: string;
}

export interface BatchPlan<Origin> {
  visits: VisitRow[];
  /** Where each visit came from, by the visit's index. */
  origins: Origin[];
  /** Events that failed the schema or cannot be stored. */
  rejected: Unstored<Origin>[];
  /** Events repeated inside the batch itself, stored once. */
  repeated: number;
}

export interface VisitEnrichment {
  userAgent: (userAgent: string) => ParsedUserAgent;
  ipAddress: (ip: string) => string;
}

/** Past this a JavaScript Date cannot represent the timestamp. */
const MAX_TIMESTAMP_MS = 8.64e15;

/** Why an event that passed its schema still cannot be stored, if it cannot. */
export function unstorable(event: VisitEvent): string | undefined {
  return event.timestamp > MAX_TIMESTAMP_MS ? 'timestamp: out of range' : undefined;
}

/**
 * Turns a batch into rows to store and events that cannot be stored, synchronously: the hot
 * loop does no I/O per event, so a batch costs one parse each and a few statements in all.
 */
export function planBatch<Origin>(
  incoming: readonly Incoming<Origin>[],
  enrich: VisitEnrichment,
): BatchPlan<Origin> {
  const events: VisitEvent[] = [];
  const parsedFrom: Origin[] = [];
  const rejected: Unstored<Origin>[] = [];
  for (const item of incoming) {
    const parsed =
      'event' in item ? { ok: true as const, event: item.event } : parseVisitEvent(item.value);
    const reason = parsed.ok ? unstorable(parsed.event) : parsed.reason;
    if (reason !== undefined || !parsed.ok) {
      rejected.push({ origin: item.origin, reason: reason ?? 'invalid event' });
      continue;
    }
    events.push(parsed.event);
    parsedFrom.push(item.origin);
  }
  const { visits, repeated, sources } = planEvents(events, enrich);
  return { visits, origins: sources.map((index) => parsedFrom[index]!), rejected, repeated };
}

/**
 * Rows for valid events, an event repeated inside the batch once; `sources` holds, for each
 * row, the index of the event it came from.
 */
export function planEvents(
  events: readonly VisitEvent[],
  enrich: VisitEnrichment,
): { visits: VisitRow[]; repeated: number; sources: number[] } {
  const visits: VisitRow[] = [];
  const sources: number[] = [];
  const seen = new Set<string>();
  for (const [index, event] of events.entries()) {
    const id = event.id.toLowerCase();
    if (seen.has(id)) continue;
    seen.add(id);
    sources.push(index);
    const { platform, browser } = enrich.userAgent(event.userAgent);
    visits.push({
      id,
      urlId: event.urlID,
      createdAt: new Date(event.timestamp).toISOString(),
      ipAddress: enrich.ipAddress(event.ip),
      platform,
      browser,
      referrer: event.referrer,
    });
  }
  return { visits, repeated: events.length - visits.length, sources };
}
