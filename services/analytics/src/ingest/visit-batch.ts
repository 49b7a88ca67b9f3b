import type { IHeaders, KafkaMessage } from 'kafkajs';
import { parseVisitEvent, type VisitEvent } from '@shortener/contracts';
import type { VisitRow } from '../visits/visits.repository';
import type { ParsedUserAgent } from './user-agent.parser';

/** A message that cannot be stored, kept as it came for the dead-letter topic. */
export interface RejectedMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders | undefined;
  reason: string;
}

export interface BatchPlan {
  visits: VisitRow[];
  /** The message each visit came from, by the visit's index. */
  origins: KafkaMessage[];
  rejected: RejectedMessage[];
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
 * Turns a fetched batch into rows to store and messages to dead-letter, synchronously: the hot
 * loop does no I/O per message, so a batch costs one parse each and a few statements in all.
 */
export function planBatch(messages: readonly KafkaMessage[], enrich: VisitEnrichment): BatchPlan {
  const events: VisitEvent[] = [];
  const parsedFrom: KafkaMessage[] = [];
  const rejected: RejectedMessage[] = [];
  for (const message of messages) {
    const parsed = parseVisitEvent(message.value);
    const reason = parsed.ok ? unstorable(parsed.event) : parsed.reason;
    if (reason !== undefined || !parsed.ok) {
      rejected.push(rejectedMessage(message, reason ?? 'invalid event'));
      continue;
    }
    events.push(parsed.event);
    parsedFrom.push(message);
  }
  const { visits, repeated, sources } = planEvents(events, enrich);
  return { visits, origins: sources.map((index) => parsedFrom[index]!), rejected, repeated };
}

export function rejectedMessage(message: KafkaMessage, reason: string): RejectedMessage {
  return {
    offset: message.offset,
    key: message.key ?? null,
    value: message.value,
    headers: message.headers,
    reason,
  };
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

/** Splits rows into pieces of at most `size`, so one statement never grows without bound. */
export function chunk<T>(rows: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < rows.length; start += size) {
    chunks.push(rows.slice(start, start + size));
  }
  return chunks;
}
