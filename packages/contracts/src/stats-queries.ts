import { z } from 'zod';
import { CURSOR_MESSAGE, hasNoControlCharacters, VISITS_CURSOR_PATTERN } from './api-requests';
import {
  DEFAULT_STATS_RANGE,
  DEVICES,
  DIRECT_REFERRER,
  STATS_RANGES,
  UNKNOWN_COUNTRY,
} from './stats';

/** The longest text a filter takes: a host name's longest, longer than any browser or system. */
export const STATS_FILTER_MAX = 253;

const textMessage = <Name extends string>(name: Name) =>
  `${name} must be one text of 1 to ${STATS_FILTER_MAX} characters, without control characters.` as const;

/** What a filter of the stats, the visitor log and the CSV refuses, word for word (400). */
export const STATS_FILTER_MESSAGES = {
  country: `country must be two capital letters (ISO 3166-1 alpha-2; ${UNKNOWN_COUNTRY} for unknown).`,
  device: `device must be one of ${DEVICES.join(', ')}.`,
  browser: textMessage('browser'),
  os: textMessage('os'),
  referrer: textMessage('referrer'),
  utm_source: textMessage('utm_source'),
  utm_medium: textMessage('utm_medium'),
  utm_campaign: textMessage('utm_campaign'),
} as const;

function filterText(
  name: 'browser' | 'os' | 'referrer' | 'utm_source' | 'utm_medium' | 'utm_campaign',
  description: string,
) {
  const message = STATS_FILTER_MESSAGES[name];
  return z
    .string({ error: message })
    .min(1, { error: message })
    .max(STATS_FILTER_MAX, { error: message })
    .refine(hasNoControlCharacters, { error: message })
    .optional()
    .describe(description);
}

/**
 * Only the visits of these values, each as the stats list it (all given must hold): the
 * filters of a link's stats, visitor log and CSV.
 */
export const statsFiltersSchema = z.object({
  country: z
    .string({ error: STATS_FILTER_MESSAGES.country })
    .regex(/^[A-Z]{2}$/, { error: STATS_FILTER_MESSAGES.country })
    .optional()
    .describe(
      `Only visits from this country, as the stats' countries list it (${UNKNOWN_COUNTRY}: unknown).`,
    ),
  device: z
    .enum(DEVICES, { error: STATS_FILTER_MESSAGES.device })
    .optional()
    .describe('Only visits from this kind of device.'),
  browser: filterText('browser', "Only visits from this browser, as the stats' browsers list it."),
  os: filterText('os', "Only visits from this system, as the stats' os list it."),
  referrer: filterText(
    'referrer',
    "Only visits referred by this host, as the stats' referrers list it " +
      `(${DIRECT_REFERRER}: the request named none; (unknown): it named no URL with a host).`,
  ),
  utm_source: filterText(
    'utm_source',
    "Only visits whose request named this utm_source (as the visitor log's utmSource shows it).",
  ),
  utm_medium: filterText(
    'utm_medium',
    "Only visits whose request named this utm_medium (as the visitor log's utmMedium shows it).",
  ),
  utm_campaign: filterText(
    'utm_campaign',
    "Only visits whose request named this utm_campaign (as the visitor log's utmCampaign shows it).",
  ),
});
export type StatsFilters = z.infer<typeof statsFiltersSchema>;

/** GET /api/stats/{urlID}'s query. */
export const statsQuerySchema = z.object({
  range: z
    .enum(STATS_RANGES, { message: `range must be one of ${STATS_RANGES.join(', ')}` })
    .default(DEFAULT_STATS_RANGE)
    .describe('Default 7d'),
  ...statsFiltersSchema.shape,
});
export type StatsQuery = z.infer<typeof statsQuerySchema>;

/** GET /api/visitors/{urlID}'s query. */
export const visitorsQuerySchema = z.object({
  cursor: z
    .string({ error: 'Give one cursor only.' })
    .regex(VISITS_CURSOR_PATTERN, { error: CURSOR_MESSAGE })
    .optional()
    .describe('Where the page starts: the X-Next-Cursor header of the previous page.'),
  ...statsFiltersSchema.shape,
});
export type VisitorsQuery = z.infer<typeof visitorsQuerySchema>;
