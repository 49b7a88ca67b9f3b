import type { LinkStats } from '@shortener/contracts/web-stats';

/** The most labels under the chart: enough to place a bar, few enough to fit a phone. */
const MAX_TICKS = 5;
/** A series this short has every bucket labelled (a week: each day). */
const EVERY_BUCKET = 7;

const pad = (value: number) => String(value).padStart(2, '0');

/** A bucket's name in local time: 'dd/mm hh:00' for an hour, 'dd/mm' for a day. */
export function bucketLabel(t: number, interval: LinkStats['interval']): string {
  const date = new Date(t);
  const day = `${pad(date.getDate())}/${pad(date.getMonth() + 1)}`;
  return interval === 'hour' ? `${day} ${pad(date.getHours())}:00` : day;
}

/**
 * Which buckets of a series of `length` the axis labels: all of a short one, else evenly
 * spaced ones (at most MAX_TICKS), always the first and the last.
 */
export function axisTicks(length: number): number[] {
  if (length <= EVERY_BUCKET) return Array.from({ length }, (_, index) => index);
  const step = Math.ceil((length - 1) / (MAX_TICKS - 1));
  const ticks: number[] = [];
  for (let index = 0; index < length - 1; index += step) ticks.push(index);
  // The last bucket, unless a tick sits so close before it that the two labels would touch.
  if (length - 1 - ticks[ticks.length - 1]! < step / 2) ticks.pop();
  ticks.push(length - 1);
  return ticks;
}
