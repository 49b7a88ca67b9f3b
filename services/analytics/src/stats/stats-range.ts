import { OTHER_ENTRY, STATS_LIST_MAX, type StatsRange } from '@shortener/contracts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Where a range's series starts and ends, and its buckets (UTC hours or days, oldest first). */
export interface StatsWindow {
  range: StatsRange;
  interval: 'hour' | 'day';
  /** Milliseconds: the first bucket's start. */
  from: number;
  /** Milliseconds: now. */
  to: number;
  /** Each bucket's start, from `from` to the one holding `to`. */
  buckets: number[];
}

const floorTo = (time: number, unit: number): number => Math.floor(time / unit) * unit;

/**
 * 24h: the 24 UTC hours up to and including the current one. 7d and 30d: that many UTC days
 * up to and including today. all: every UTC day from the link's creation (or its first
 * visit, if one is older: a clock can be behind) to today.
 */
export function statsWindow(
  range: StatsRange,
  now: number,
  since: { createdAt: number | null; firstVisit: number | null },
): StatsWindow {
  if (range === '24h') {
    const from = floorTo(now, HOUR_MS) - 23 * HOUR_MS;
    return { range, interval: 'hour', from, to: now, buckets: steps(from, now, HOUR_MS) };
  }
  const today = floorTo(now, DAY_MS);
  let from: number;
  if (range === 'all') {
    const starts = [since.createdAt, since.firstVisit, now].filter(
      (time): time is number => time !== null,
    );
    from = floorTo(Math.min(...starts), DAY_MS);
  } else {
    from = today - ((range === '7d' ? 7 : 30) - 1) * DAY_MS;
  }
  return { range, interval: 'day', from, to: now, buckets: steps(from, now, DAY_MS) };
}

/** How long each range but `all` is: its previous period is this much earlier. */
const RANGE_LENGTH: Record<Exclude<StatsRange, 'all'>, number> = {
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
};

/**
 * The period a window is compared with: the window moved back by its range's length, so
 * today's partial day (or the current partial hour) meets the same part of the one before.
 * None for `all`.
 */
export function previousWindow(window: StatsWindow): { from: number; to: number } | null {
  if (window.range === 'all') return null;
  const length = RANGE_LENGTH[window.range];
  return { from: window.from - length, to: window.to - length };
}

function steps(from: number, to: number, size: number): number[] {
  const buckets: number[] = [];
  for (let start = from; start <= to; start += size) buckets.push(start);
  return buckets;
}

/**
 * Sorted by visits (then by name, so equal counts always come in one order); past
 * STATS_LIST_MAX, the smallest are summed into one `Other` entry, so the list still adds up.
 */
export function topList(counts: ReadonlyMap<string, number>): Array<[string, number]> {
  const sorted = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  if (sorted.length <= STATS_LIST_MAX) return sorted;
  const kept = sorted.slice(0, STATS_LIST_MAX - 1);
  let rest = 0;
  for (const [, visits] of sorted.slice(STATS_LIST_MAX - 1)) rest += visits;
  return [...kept, [OTHER_ENTRY, rest]];
}
