import { CUSTOM_RANGE, type AccountStatsFilters, type StatsRange } from '@shortener/contracts';
import { previousWindow, statsWindow, type StatsWindow } from '../stats/stats-range';

/** What an account's statistics (and its export) are asked for: a range or period, filters. */
export interface AccountStatsRequest extends AccountStatsFilters {
  range: StatsRange;
  from?: number;
  to?: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A stats window whose range may be a period given by from/to. */
export type AccountWindow = Omit<StatsWindow, 'range'> & {
  range: StatsRange | typeof CUSTOM_RANGE;
};

const floorTo = (time: number, unit: number): number => Math.floor(time / unit) * unit;

/**
 * The window of a range (as a link's, `all` from the account's first visit), or of a period:
 * whole UTC hours when it is at most 48 hours long and within the last two days (the hourly
 * breakdowns are kept that long), whole UTC days otherwise.
 */
export function accountWindow(
  query: { range: StatsRange; from?: number; to?: number },
  now: number,
  firstVisit: number | null,
): AccountWindow {
  if (query.from === undefined || query.to === undefined) {
    return statsWindow(query.range, now, { createdAt: null, firstVisit });
  }
  const hourly = query.to - query.from <= 2 * DAY_MS && query.from >= now - 2 * DAY_MS;
  const unit = hourly ? HOUR_MS : DAY_MS;
  const from = floorTo(query.from, unit);
  const buckets: number[] = [];
  for (let start = from; start <= query.to; start += unit) buckets.push(start);
  return { range: CUSTOM_RANGE, interval: hourly ? 'hour' : 'day', from, to: query.to, buckets };
}

/** The period before: a range's as a link's; a period's moved back by its own length. */
export function previousAccountWindow(window: AccountWindow): { from: number; to: number } | null {
  if (window.range !== CUSTOM_RANGE) return previousWindow(window as StatsWindow);
  const unit = window.interval === 'hour' ? HOUR_MS : DAY_MS;
  const length = window.buckets.length * unit;
  return { from: window.from - length, to: window.to - length };
}

/** The window as the link reads take it: a period reads as a bounded range. */
export const asStatsWindow = (window: AccountWindow): StatsWindow =>
  window.range === CUSTOM_RANGE ? { ...window, range: '30d' } : (window as StatsWindow);
