import { loadAnalyticsConfig } from '../config';
import {
  addMonths,
  monthOf,
  monthOfPartition,
  oldestKept,
  partitionName,
} from './visit-partitions';

const SECRET = { INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' };

describe('visit partitions by month', () => {
  it('names a UTC month, and reads the name back', () => {
    const month = monthOf(Date.parse('2026-12-31T23:59:59.999Z'));
    expect(month.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(partitionName(month)).toBe('visits_2026_12');
    expect(monthOfPartition('visits_2026_12')).toEqual(month);
    expect(partitionName(addMonths(month, 1))).toBe('visits_2027_01');
    expect(monthOfPartition('visits_unpartitioned')).toBeUndefined();
    expect(monthOfPartition('visit_ids')).toBeUndefined();
  });

  it('keeps the retention in whole months before the current one', () => {
    expect(oldestKept(new Date('2027-04-05T10:00:00Z'), 12).toISOString()).toBe(
      '2026-04-01T00:00:00.000Z',
    );
    expect(oldestKept(new Date('2027-01-31T23:00:00Z'), 1).toISOString()).toBe(
      '2026-12-01T00:00:00.000Z',
    );
  });

  it('keeps every visit unless VISIT_RETENTION_MONTHS says otherwise, and checks it', () => {
    expect(loadAnalyticsConfig(SECRET).VISIT_RETENTION_MONTHS).toBeUndefined();
    expect(
      loadAnalyticsConfig({ ...SECRET, VISIT_RETENTION_MONTHS: '' }).VISIT_RETENTION_MONTHS,
    ).toBeUndefined();
    expect(
      loadAnalyticsConfig({ ...SECRET, VISIT_RETENTION_MONTHS: '24' }).VISIT_RETENTION_MONTHS,
    ).toBe(24);
    for (const bad of ['0', '-3', '1.5', 'a year', '1201']) {
      expect(() => loadAnalyticsConfig({ ...SECRET, VISIT_RETENTION_MONTHS: bad })).toThrow(
        /VISIT_RETENTION_MONTHS/,
      );
    }
  });
});
