import {
  decodeVisits,
  DIRECT_REFERRER,
  type RecordedVisit,
  type VisitEvent,
  type VisitEventParse,
} from '@shortener/contracts';
import type { PreparedVisits, VisitRow } from './ingest.repository';
import { RecentCache, type ParsedUserAgent } from '@shortener/visitor';

/**
 * A visit event as a source received it: the bytes of a message (one JSON event or a packed
 * record, from Kafka or the embedded bus). `origin` is what the source needs to answer for
 * it: the Kafka message to dead-letter, say.
 */
export interface Incoming<Origin> {
  value: Buffer | null;
  origin: Origin;
  /** The record's utm header (its visits' campaign fields), when it came with one. */
  utm?: unknown;
}

/** One of the events of a packed record (see @shortener/contracts' visit-record). */
interface RecordPart {
  /** Its place in the record, from 1. */
  index: number;
  count: number;
  /** The event as the record held it, before its check. */
  event: RecordedVisit;
}

/**
 * Where an event came from: its source's origin and, when a packed record carried it with
 * others, which of them it is, so that it alone can be dead-lettered.
 */
interface EventOrigin<Origin> {
  origin: Origin;
  part?: RecordPart;
}

/** An event (or a whole record) that cannot be stored for its data, never for an outage, and why. */
export interface Unstored<Origin> extends EventOrigin<Origin> {
  reason: string;
}

interface BatchPlan<Origin> {
  visits: VisitRow[];
  /** Where each visit came from, by the visit's index. */
  origins: EventOrigin<Origin>[];
  /** Events that failed the schema or cannot be stored. */
  rejected: Unstored<Origin>[];
  /** Events repeated inside the batch itself, stored once. */
  repeated: number;
}

/**
 * A batch planned and its statements' parameters made (IngestService.prepare), ready to
 * store while the batch before it is being stored.
 */
export interface PreparedBatch<Origin> extends BatchPlan<Origin> {
  statements?: PreparedVisits;
}

/** What ingest adds to an event before storing it. */
export interface VisitEnrichment {
  userAgent: (userAgent: string) => ParsedUserAgent;
  /** The address as stored: as given, or anonymised (ANONYMIZE_IP). */
  ipAddress: (ip: string) => string;
  /** The country of the address as given, before any anonymisation. */
  country: (ip: string) => string;
  /**
   * The visitor of a UTC day: a keyed hash of the (IP, User-Agent) pair as given, whose key
   * is that day's. The pair itself is never stored for this.
   */
  visitor: (day: string, ip: string, userAgent: string) => Buffer;
}

/** Events parsed and checked, with where each came from. */
interface ParsedBatch<Origin> {
  events: VisitEvent[];
  origins: EventOrigin<Origin>[];
  rejected: Unstored<Origin>[];
}

const DAY_MS = 86_400_000;
/** The day utcDay answered last: nearly every event of a batch is of the same day. */
let lastDay = { number: NaN, day: '' };

/** The UTC day (YYYY-MM-DD) of a timestamp: unique visitors and breakdowns are per day. */
export function utcDay(timestamp: number): string {
  const number = Math.floor(timestamp / DAY_MS);
  if (number !== lastDay.number) {
    lastDay = { number, day: new Date(number * DAY_MS).toISOString().slice(0, 10) };
  }
  return lastDay.day;
}

const MAX_HOST_LENGTH = 253;

/**
 * Where a visitor came from, for the referrers breakdown: the referring URL's host,
 * `(direct)` when the request named none, `(unknown)` when what it named is not a URL
 * with a host.
 */
export function referrerHost(referrer: string | null): string {
  if (referrer === null || referrer === '') return DIRECT_REFERRER;
  return REFERRER_HOSTS.get(referrer);
}

/** The hosts of the referrers seen most recently: traffic repeats a few referring pages. */
const REFERRER_HOSTS = new RecentCache<string>(1000, hostOf);

function hostOf(referrer: string): string {
  let host: string;
  try {
    host = new URL(referrer).hostname.toLowerCase();
  } catch {
    return '(unknown)';
  }
  return host === '' || host.length > MAX_HOST_LENGTH ? '(unknown)' : host;
}

/**
 * A visit's referrer as the visitor log and the live stream show it: reduced to its host as
 * the stats count it (the path and query may carry what the visitor's page did not mean to
 * share), or null when the request named none.
 */
export function visitReferrer(referrer: string | null): string | null {
  const host = referrerHost(referrer);
  return host === DIRECT_REFERRER ? null : host;
}

/**
 * The end of the year 9999: past it an ISO 8601 date has a six-digit year, which PostgreSQL
 * does not read, and the day's visitor key could not be stored (the partition would wait on
 * that batch for ever).
 */
const MAX_TIMESTAMP_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** Why an event that passed its schema still cannot be stored, if it cannot. */
export function unstorable(event: VisitEvent): string | undefined {
  return event.timestamp > MAX_TIMESTAMP_MS ? 'timestamp: out of range' : undefined;
}

/** Reads messages one at a time into a parsed batch (see parseBatch). */
class BatchParser<Origin> {
  readonly events: VisitEvent[] = [];
  readonly origins: EventOrigin<Origin>[] = [];
  readonly rejected: Unstored<Origin>[] = [];

  /** Reads one message; answers how many events it held. */
  add(item: Incoming<Origin>): number {
    const message = decodeVisits(item.value, item.utm);
    if (!message.ok) {
      this.rejected.push({ origin: item.origin, reason: message.reason });
      return 1;
    }
    const { recorded } = message;
    if (recorded === undefined) {
      this.accept(message.events[0]!, { origin: item.origin });
      return 1;
    }
    const count = recorded.length;
    for (const [at, event] of recorded.entries()) {
      const part = { index: at + 1, count, event };
      this.accept(message.events[at]!, { origin: item.origin, part });
    }
    return count;
  }

  private accept(parsed: VisitEventParse, from: EventOrigin<Origin>): void {
    const reason = parsed.ok ? unstorable(parsed.event) : parsed.reason;
    if (reason !== undefined || !parsed.ok) {
      this.rejected.push({ ...from, reason: reason ?? 'invalid event' });
      return;
    }
    this.events.push(parsed.event);
    this.origins.push(from);
  }

  get parsed(): ParsedBatch<Origin> {
    return { events: this.events, origins: this.origins, rejected: this.rejected };
  }
}

/**
 * Parses and checks a batch: events to store, and those that cannot be, with their origins. A
 * message is one JSON event or a packed record of many (the contracts' decodeVisits reads
 * both); a message that cannot be read is refused whole, an event of a readable record that
 * fails its check is refused alone.
 */
function parseBatch<Origin>(incoming: readonly Incoming<Origin>[]): ParsedBatch<Origin> {
  const parser = new BatchParser<Origin>();
  for (const item of incoming) parser.add(item);
  return parser.parsed;
}

/**
 * Events between two turns of the event loop in the yielding parse and plan: a few
 * milliseconds of work, so that I/O waiting meanwhile (the statements of the batch before,
 * being stored) is answered promptly rather than after the whole batch.
 */
const PLAN_SLICE_EVENTS = 250;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** parseBatch, letting the event loop turn every `slice` events or so. */
export async function parseBatchYielding<Origin>(
  incoming: readonly Incoming<Origin>[],
  slice = PLAN_SLICE_EVENTS,
): Promise<ParsedBatch<Origin>> {
  const parser = new BatchParser<Origin>();
  let read = 0;
  for (const item of incoming) {
    read += parser.add(item);
    if (read >= slice) {
      read = 0;
      await nextTurn();
    }
  }
  return parser.parsed;
}

/**
 * Turns a batch into rows to store and events that cannot be stored, synchronously: the hot
 * loop does no I/O per event, so a batch costs one parse each and a few statements in all.
 */
export function planBatch<Origin>(
  incoming: readonly Incoming<Origin>[],
  enrich: VisitEnrichment,
): BatchPlan<Origin> {
  return planParsed(parseBatch(incoming), enrich);
}

/** The rows of a parsed batch (see planBatch). */
function planParsed<Origin>(
  { events, origins, rejected }: ParsedBatch<Origin>,
  enrich: VisitEnrichment,
): BatchPlan<Origin> {
  const { visits, repeated, sources } = planEvents(events, enrich);
  return { visits, origins: sources.map((index) => origins[index]!), rejected, repeated };
}

/** Turns events into rows one at a time (see planEvents). */
class EventPlanner {
  readonly visits: VisitRow[] = [];
  readonly sources: number[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly enrich: VisitEnrichment) {}

  add(event: VisitEvent, index: number): void {
    const { enrich } = this;
    const id = event.id.toLowerCase();
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.sources.push(index);
    const { platform, browser, device, bot } = enrich.userAgent(event.userAgent);
    this.visits.push({
      id,
      urlId: event.urlID,
      timestamp: event.timestamp,
      ipAddress: enrich.ipAddress(event.ip),
      platform,
      browser,
      referrer: event.referrer,
      bot,
      device,
      country: enrich.country(event.ip),
      referrerHost: referrerHost(event.referrer),
      utmSource: event.utmSource ?? null,
      utmMedium: event.utmMedium ?? null,
      utmCampaign: event.utmCampaign ?? null,
      visitor: enrich.visitor(utcDay(event.timestamp), event.ip, event.userAgent),
    });
  }

  planned(events: number): { visits: VisitRow[]; repeated: number; sources: number[] } {
    return { visits: this.visits, repeated: events - this.visits.length, sources: this.sources };
  }
}

/**
 * Rows for valid events, an event repeated inside the batch once; `sources` holds, for each
 * row, the index of the event it came from.
 */
function planEvents(
  events: readonly VisitEvent[],
  enrich: VisitEnrichment,
): { visits: VisitRow[]; repeated: number; sources: number[] } {
  const planner = new EventPlanner(enrich);
  for (const [index, event] of events.entries()) planner.add(event, index);
  return planner.planned(events.length);
}

/**
 * planParsed, letting the event loop turn every `slice` events: the same rows, made while
 * the batch before is being stored (the Kafka source overlaps the two).
 */
export async function planParsedYielding<Origin>(
  { events, origins, rejected }: ParsedBatch<Origin>,
  enrich: VisitEnrichment,
  slice = PLAN_SLICE_EVENTS,
): Promise<BatchPlan<Origin>> {
  const planner = new EventPlanner(enrich);
  for (let index = 0; index < events.length; index++) {
    if (index > 0 && index % slice === 0) await nextTurn();
    planner.add(events[index]!, index);
  }
  const { visits, repeated, sources } = planner.planned(events.length);
  return { visits, origins: sources.map((index) => origins[index]!), rejected, repeated };
}
