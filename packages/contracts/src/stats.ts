import { z } from 'zod';
import { visitSchema } from './api';

/** GET /api/stats/{urlID}?range=: the ranges, and the one used when none is given. */
export const STATS_RANGES = ['24h', '7d', '30d', 'all'] as const;
export type StatsRange = (typeof STATS_RANGES)[number];
export const DEFAULT_STATS_RANGE: StatsRange = '7d';
export const statsRangeSchema = z.enum(STATS_RANGES, {
  error: `range must be one of ${STATS_RANGES.join(', ')}`,
});

/** The kinds of device the stats tell apart. */
export const DEVICES = ['desktop', 'mobile', 'tablet', 'bot', 'other'] as const;
export type Device = (typeof DEVICES)[number];

/** ISO 3166-1 user-assigned code for an unknown country (loopback, private, not listed). */
export const UNKNOWN_COUNTRY = 'ZZ';
/** The referrers entry of visits whose request named no referrer. */
export const DIRECT_REFERRER = '(direct)';
/** What the smallest entries of a list past its first nine are summed as. */
export const OTHER_ENTRY = 'Other';
/** Entries of each list in the stats answer, `Other` included. */
export const STATS_LIST_MAX = 10;

const count = z.number().int().nonnegative();
const namedCounts = z.array(z.object({ name: z.string(), visits: count })).max(STATS_LIST_MAX);

/** A link's statistics over a range (millisecond timestamps, UTC buckets). */
export const linkStatsSchema = z.object({
  urlID: z.string(),
  range: statsRangeSchema,
  from: z.number().int(),
  to: z.number().int(),
  interval: z.enum(['hour', 'day']),
  totals: z.object({ visits: count, humans: count, bots: count, uniqueVisitors: count }),
  /** Every bucket from `from` to `to`, oldest first, zeros included. */
  series: z.array(z.object({ t: z.number().int(), visits: count, humans: count, bots: count })),
  browsers: namedCounts,
  os: namedCounts,
  devices: namedCounts,
  referrers: namedCounts,
  countries: z.array(z.object({ code: z.string(), visits: count })).max(STATS_LIST_MAX),
  /**
   * The same stretch of time just before (`from` and `to` moved back by the range's length),
   * so a change can be told beside the totals; absent for `all`, which has nothing before it.
   */
  previous: z
    .object({
      from: z.number().int(),
      to: z.number().int(),
      visits: count,
      humans: count,
      bots: count,
    })
    .optional(),
});
export type LinkStats = z.infer<typeof linkStatsSchema>;

/** A stored visit as the live stream sends it: the visitor shape, plus what the stats add. */
export const liveVisitSchema = visitSchema.extend({
  country: z.string(),
  device: z.enum(DEVICES),
  bot: z.boolean(),
});
export type LiveVisit = z.infer<typeof liveVisitSchema>;

/** GET /api/stats/{urlID}/live, as Server-Sent Events: the names of its events. */
export const LIVE_EVENTS = {
  /** One stored visit (data: a LiveVisit). */
  visit: 'visit',
  /**
   * Visits were left out because the client did not take them fast enough: what it shows
   * is stale until it fetches the stats and visitors again (data: {}).
   */
  refetch: 'refetch',
  /** The server ended the stream and it should not be opened again (data: {reason}). */
  end: 'end',
} as const;

/** Why the server ended a live stream: the `reason` of its `end` event. */
export const LIVE_END_REASONS = {
  sessionEnded: 'session ended',
  linkDeleted: 'link deleted',
  /** The gateway instance is stopping: EventSource reconnects by itself, to another one. */
  serverStopping: 'server stopping',
} as const;
export type LiveEndReason = (typeof LIVE_END_REASONS)[keyof typeof LIVE_END_REASONS];

/** The visits of one link stored in one transaction, as analytics announces them. */
export const storedVisitsSchema = z.object({
  urlID: z.string(),
  visits: z.array(liveVisitSchema),
});
export type StoredVisits = z.infer<typeof storedVisitsSchema>;

/** The CSV export's columns, in order. */
export const VISITS_CSV_COLUMNS = [
  'time',
  'ip',
  'country',
  'platform',
  'browser',
  'device',
  'referrer',
  'bot',
  'utm_source',
  'utm_medium',
  'utm_campaign',
] as const;

/** The Redis pub/sub channel on which analytics announces a link's newly stored visits. */
export function storedVisitsChannel(urlID: string): string {
  return `visits:stored:${urlID}`;
}

/**
 * The key an account's live notices go by, in place of a link's code (`@` is in no code):
 * analytics announces every link's stored visits under its owner's key too.
 */
export function accountVisitsKey(ownerId: string): string {
  return `@${ownerId}`;
}
