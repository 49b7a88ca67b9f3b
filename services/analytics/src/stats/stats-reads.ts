import type { EntityManager } from 'typeorm';
import type { LinkStats } from '@shortener/contracts';
import { DIMENSIONS, type Dimension } from '../visits/rollups';
import type { StatsWindow } from './stats-range';

export type SeriesPoint = LinkStats['series'][number];
export type Queryable = Pick<EntityManager, 'query'>;

/** Visits, people and bots, as PostgreSQL sums or counts them (bigint: text). */
export interface Sums {
  visits: string | null;
  humans: string | null;
  bots: string | null;
}

export interface Counts {
  visits: number;
  humans: number;
  bots: number;
}

export const count = (value: string | number | null | undefined): number => Number(value ?? 0);

export const countsOf = (row: Sums | undefined): Counts => ({
  visits: count(row?.visits),
  humans: count(row?.humans),
  bots: count(row?.bots),
});

/**
 * What a link's statistics are read from: the rollups (every visit), or the visits themselves
 * (those a filter matches). Each reads in the window the stats answer covers.
 */
export interface StatsReads {
  /**
   * Visits, people and bots in the hours from `from` to `to` (both included, as the series),
   * or of all time, whatever the timestamps.
   */
  sums(span: { from: number; to: number } | null): Promise<Counts>;
  /** Every bucket of the window, zeros included, oldest first. */
  series(window: StatsWindow): Promise<SeriesPoint[]>;
  /** Visitor-days in the window. */
  uniqueVisitors(window: StatsWindow): Promise<number>;
  /** Visits per value of each dimension in the window. */
  breakdowns(window: StatsWindow): Promise<Map<Dimension, Map<string, number>>>;
}

/** The window's buckets, zeros included, from rows of sums by bucket. */
export function seriesOf(
  window: Pick<StatsWindow, 'buckets'>,
  rows: ReadonlyArray<Sums & { bucket: Date }>,
): SeriesPoint[] {
  const byBucket = new Map(rows.map((row) => [row.bucket.getTime(), row]));
  return window.buckets.map((t) => ({ t, ...countsOf(byBucket.get(t)) }));
}

/** A list per dimension, each empty. */
export function emptyLists(): Map<Dimension, Map<string, number>> {
  return new Map(DIMENSIONS.map((dimension) => [dimension, new Map<string, number>()]));
}
