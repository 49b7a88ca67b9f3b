import { z } from 'zod';
import { hasNoControlCharacters } from './api-requests';
import { DOMAIN_HOST_MAX } from './domains';
import { isShortCode } from './links';
import {
  DEFAULT_STATS_RANGE,
  linkStatsSchema,
  STATS_LIST_MAX,
  STATS_RANGES,
  VISITS_CSV_COLUMNS,
} from './stats';
import { STATS_FILTER_MAX, statsFiltersSchema } from './stats-queries';

/** The answer's `range` for a period given by `from` and `to`. */
export const CUSTOM_RANGE = 'custom';

/** The campaign filters, as the query names them (the visit's UTM parameters). */
export const UTM_FILTERS = ['utm_source', 'utm_medium', 'utm_campaign'] as const;
export type UtmFilter = (typeof UTM_FILTERS)[number];

/** The longest period `from` and `to` may span: ten years of days. */
export const ACCOUNT_STATS_MAX_DAYS = 3660;

const utmMessage = (name: UtmFilter) =>
  `${name} must be one text of 1 to ${STATS_FILTER_MAX} characters, without control characters.` as const;
const timeMessage = (name: 'from' | 'to') =>
  `${name} must be a time: ISO 8601 (2026-11-01 or 2026-11-01T12:00:00Z) or milliseconds since 1970.` as const;

/** What GET /api/analytics refuses besides the filters of a link's stats, word for word (400). */
export const ACCOUNT_STATS_MESSAGES = {
  link: 'link must be a short link code (its urlID).',
  domain:
    'domain must be a host name, such as go.example.com (a Unicode name in its punycode form, xn--).',
  utm_source: utmMessage('utm_source'),
  utm_medium: utmMessage('utm_medium'),
  utm_campaign: utmMessage('utm_campaign'),
  from: timeMessage('from'),
  to: timeMessage('to'),
  period:
    `from and to go together, from before to, at most ${ACCOUNT_STATS_MAX_DAYS} days apart ` +
    '(without them, range sets the period).',
} as const;

/** A time of the query: milliseconds, or an ISO 8601 date or date and time (UTC if no zone). */
export function parseQueryTime(text: string): number | null {
  if (/^\d{1,15}$/.test(text)) return Number(text);
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text))
    return null;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(text) || text.length === 10 ? text : `${text}Z`;
  const time = Date.parse(zoned);
  return Number.isFinite(time) ? time : null;
}

function utmText(name: UtmFilter) {
  const message = ACCOUNT_STATS_MESSAGES[name];
  return z
    .string({ error: message })
    .min(1, { error: message })
    .max(STATS_FILTER_MAX, { error: message })
    .refine(hasNoControlCharacters, { error: message })
    .optional()
    .describe(`Only visits whose link URL carried this ${name}, as the answer's list names it.`);
}

function queryTime(name: 'from' | 'to', description: string) {
  const message = ACCOUNT_STATS_MESSAGES[name];
  return z
    .string({ error: message })
    .transform((text, context) => {
      const time = parseQueryTime(text);
      if (time === null) {
        context.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return time;
    })
    .optional()
    .describe(description);
}

/** A host name as the links service stores a domain's: ASCII labels, two at least. */
const DOMAIN_FILTER_PATTERN =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The filters of the account's analytics (all given must hold): a link's, plus one of the
 * caller's links, one of the caller's branded domains and the campaign's UTM parameters.
 */
export const accountStatsFiltersSchema = z.object({
  link: z
    .string({ error: ACCOUNT_STATS_MESSAGES.link })
    .refine(isShortCode, { error: ACCOUNT_STATS_MESSAGES.link })
    .optional()
    .describe("Only visits of this link of the caller's (another's counts nothing)."),
  domain: z
    .string({ error: ACCOUNT_STATS_MESSAGES.domain })
    .max(DOMAIN_HOST_MAX, { error: ACCOUNT_STATS_MESSAGES.domain })
    .transform((host) => host.toLowerCase())
    .refine((host) => DOMAIN_FILTER_PATTERN.test(host), { error: ACCOUNT_STATS_MESSAGES.domain })
    .optional()
    .describe(
      "Only visits of the caller's links on this branded domain, as they are now (a link " +
        "moved to another domain counts there); another's domain counts nothing.",
    ),
  ...statsFiltersSchema.shape,
  utm_source: utmText('utm_source'),
  utm_medium: utmText('utm_medium'),
  utm_campaign: utmText('utm_campaign'),
});
export type AccountStatsFilters = z.infer<typeof accountStatsFiltersSchema>;

/**
 * GET /api/analytics's query. `from` and `to` go together (isPeriod; the route checks it, as a
 * query schema's fields are read one by one).
 */
export const accountStatsQuerySchema = z.object({
  range: z
    .enum(STATS_RANGES, { message: `range must be one of ${STATS_RANGES.join(', ')}` })
    .default(DEFAULT_STATS_RANGE)
    .describe('Default 7d; ignored when from and to are given'),
  from: queryTime('from', 'With to: the period starts here (included).'),
  to: queryTime('to', 'With from: the period ends here (included).'),
  ...accountStatsFiltersSchema.shape,
});

/** Neither `from` nor `to`, or both, `from` first, at most ACCOUNT_STATS_MAX_DAYS apart. */
export function isPeriod(from: number | undefined, to: number | undefined): boolean {
  if (from === undefined && to === undefined) return true;
  return (
    from !== undefined &&
    to !== undefined &&
    from < to &&
    to - from <= ACCOUNT_STATS_MAX_DAYS * 86_400_000
  );
}
export type AccountStatsQuery = z.infer<typeof accountStatsQuerySchema>;

const count = z.number().int().nonnegative();
const namedCounts = z.array(z.object({ name: z.string(), visits: count })).max(STATS_LIST_MAX);

/**
 * The statistics of every link of an account over a period: a link's statistics without
 * `urlID` (`range` is `custom` for from/to), plus the most visited links and the campaigns.
 * Deleted links count nothing; visits of links made signed out belong to no account.
 */
export const accountStatsSchema = linkStatsSchema.omit({ urlID: true, range: true }).extend({
  range: z.enum([...STATS_RANGES, CUSTOM_RANGE]),
  /** The most visited links in the period, at most 10, most visits first (then by urlID). */
  links: z.array(z.object({ urlID: z.string(), visits: count })).max(STATS_LIST_MAX),
  /** The top values of each UTM parameter, as the other lists (`Other` past nine). */
  utmSources: namedCounts,
  utmMediums: namedCounts,
  utmCampaigns: namedCounts,
});
export type AccountStats = z.infer<typeof accountStatsSchema>;

/** The account export's columns: the link's code, then a link's export's (VISITS_CSV_COLUMNS). */
export const ACCOUNT_VISITS_CSV_COLUMNS = ['link', ...VISITS_CSV_COLUMNS] as const;

/** What analytics is asked for an account's statistics (the gateway parsed the query). */
export const accountStatsRequestSchema = z.object({
  ...accountStatsFiltersSchema.shape,
  range: z.enum(STATS_RANGES).optional(),
  from: z.number().int().optional(),
  to: z.number().int().optional(),
});

/** Who owns each of some links (links made signed out have no owner and are never sent). */
export const linkOwnersSchema = z.object({
  owners: z
    .array(
      z.object({
        urlID: z.string().max(50),
        ownerId: z.string().min(1).max(64),
        /** The link's branded domain, null on the main origin; absent from an older release. */
        domain: z.string().max(DOMAIN_HOST_MAX).nullable().optional(),
      }),
    )
    .max(1000),
});
export type LinkOwners = z.infer<typeof linkOwnersSchema>;
