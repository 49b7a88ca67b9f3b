import type { StatsRange } from '@shortener/contracts/web-stats';

/** A range that has a period before it: a preset one but All, or a chosen period ('custom'). */
export type ComparedRange = Exclude<StatsRange, 'all'> | 'custom';

/**
 * The current period against the one before it, for beside the totals: '+12% vs previous
 * 7d', 'same as previous 7d', or 'none in previous 7d' when there is no percentage of zero
 * ('previous period' for a chosen one).
 */
export function periodChange(current: number, previous: number, range: ComparedRange): string {
  const period = range === 'custom' ? 'previous period' : `previous ${range}`;
  if (current === previous) return `same as ${period}`;
  if (previous === 0) return `none in ${period}`;
  const percent = Math.round(((current - previous) / previous) * 100);
  if (percent === 0) return `same as ${period}`;
  // A real minus sign, as a figure is written, not a hyphen.
  return `${percent > 0 ? '+' : '−'}${String(Math.abs(percent))}% vs ${period}`;
}
