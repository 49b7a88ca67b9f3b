import {
  DEFAULT_STATS_RANGE,
  STATS_RANGES,
  type StatsRange,
} from '@shortener/contracts/web-analytics';

/**
 * The filters of GET /api/analytics, in the order the page shows their chips and writes them
 * in its URL: the page's query uses the API's own names, so a view can be bookmarked.
 */
export const ANALYTICS_FILTERS = [
  'link',
  'domain',
  'country',
  'device',
  'browser',
  'os',
  'referrer',
  'utm_source',
  'utm_medium',
  'utm_campaign',
] as const;
export type AnalyticsFilter = (typeof ANALYTICS_FILTERS)[number];
export type AnalyticsFilters = Partial<Record<AnalyticsFilter, string>>;

/** What the page shows: a range, or a period from/to (API times), and the filters. */
export interface AnalyticsView {
  range: StatsRange;
  /** A custom period, as the URL gives it (ISO 8601 or milliseconds); both or neither. */
  period?: { from: string; to: string };
  filters: AnalyticsFilters;
}

function isRange(value: string | null): value is StatsRange {
  return (STATS_RANGES as readonly (string | null)[]).includes(value);
}

/**
 * The view a page URL's query asks for. An unknown range reads as the default one; a period
 * needs both ends; a filter is kept as written (the API says what is wrong with one, and its
 * chip removes it). Empty values and names the API does not filter by are left out.
 */
export function viewFromSearch(search: URLSearchParams): AnalyticsView {
  const range = search.get('range');
  const from = search.get('from');
  const to = search.get('to');
  const filters: AnalyticsFilters = {};
  for (const name of ANALYTICS_FILTERS) {
    const value = search.get(name);
    if (value) filters[name] = value;
  }
  return {
    range: isRange(range) ? range : DEFAULT_STATS_RANGE,
    ...(from && to ? { period: { from, to } } : {}),
    filters,
  };
}

/**
 * The query of the API call and of the page's URL alike, in a fixed order: range (unless a
 * period replaces it, or it is the default), from, to, then the filters.
 */
export function viewQuery(view: AnalyticsView): Record<string, string> {
  const query: Record<string, string> = {};
  if (view.period) {
    query.from = view.period.from;
    query.to = view.period.to;
  } else if (view.range !== DEFAULT_STATS_RANGE) {
    query.range = view.range;
  }
  for (const name of ANALYTICS_FILTERS) {
    const value = view.filters[name];
    if (value) query[name] = value;
  }
  return query;
}

/** The page URL's query for a view: `range=30d&country=GB`, or '' for the default view. */
export function searchFromView(view: AnalyticsView): string {
  return new URLSearchParams(viewQuery(view)).toString();
}

/** The view with one filter set, or removed (value undefined). */
export function withFilter(
  view: AnalyticsView,
  name: AnalyticsFilter,
  value: string | undefined,
): AnalyticsView {
  const filters = { ...view.filters };
  if (value === undefined) delete filters[name];
  else filters[name] = value;
  return { ...view, filters };
}

/** The view over a preset range: any custom period is dropped. */
export function withRange(view: AnalyticsView, range: StatsRange): AnalyticsView {
  return { range, filters: view.filters };
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A custom period from two days of a date input (UTC days, as the chart's buckets): from the
 * first one's start to the last one's end. Null when either is missing, or they run backwards.
 */
export function periodFromDays(first: string, last: string): { from: string; to: string } | null {
  if (!DATE.test(first) || !DATE.test(last)) return null;
  const start = Date.parse(`${first}T00:00:00Z`);
  const end = Date.parse(`${last}T00:00:00Z`);
  if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) return null;
  return { from: first, to: new Date(end + DAY_MS - 1000).toISOString().replace('.000Z', 'Z') };
}

/** The UTC day (YYYY-MM-DD) of an API time in the URL, for a date input; '' if unreadable. */
export function dayOf(time: string): string {
  const ms = /^\d{1,15}$/.test(time)
    ? Number(time)
    : Date.parse(DATE.test(time) || /[Zz]|[+-]\d{2}:?\d{2}$/.test(time) ? time : `${time}Z`);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : '';
}
