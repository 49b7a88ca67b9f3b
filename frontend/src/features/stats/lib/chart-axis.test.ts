import { describe, expect, it } from 'vitest';
import { axisTicks, bucketLabel } from './chart-axis';

describe('bucketLabel', () => {
  // Local time, as every date the app shows.
  const t = new Date(2026, 10, 24, 14, 0).getTime();

  it('gives an hour its date, so a 24h axis that crosses midnight can be read', () => {
    expect(bucketLabel(t, 'hour')).toBe('24/11 14:00');
  });

  it('gives a day its date', () => {
    expect(bucketLabel(t, 'day')).toBe('24/11');
  });
});

describe('axisTicks', () => {
  it('labels every day of a week', () => {
    expect(axisTicks(7)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('labels a few evenly spaced buckets of a long series, always the first and the last', () => {
    expect(axisTicks(24)).toEqual([0, 6, 12, 18, 23]);
    const month = axisTicks(30);
    expect(month[0]).toBe(0);
    expect(month.at(-1)).toBe(29);
    expect(month.length).toBeLessThanOrEqual(6);
  });

  it('labels the only bucket of a one-bucket series', () => {
    expect(axisTicks(1)).toEqual([0]);
    expect(axisTicks(0)).toEqual([]);
  });
});
