import { describe, expect, it } from 'vitest';
import { periodChange } from './period-change';

describe('periodChange', () => {
  it('tells the change in percent, rounded, signed, against the previous period', () => {
    expect(periodChange(112, 100, '7d')).toBe('+12% vs previous 7d');
    expect(periodChange(3, 4, '24h')).toBe('−25% vs previous 24h');
    expect(periodChange(1, 3, '30d')).toBe('−67% vs previous 30d');
    expect(periodChange(300, 1, '7d')).toBe('+29900% vs previous 7d');
  });

  it('says the same when nothing changed', () => {
    expect(periodChange(5, 5, '7d')).toBe('same as previous 7d');
    expect(periodChange(0, 0, '7d')).toBe('same as previous 7d');
  });

  it('has no percentage of nothing: says there were none before', () => {
    expect(periodChange(4, 0, '7d')).toBe('none in previous 7d');
  });

  it("names a chosen period 'previous period'", () => {
    expect(periodChange(6, 3, 'custom')).toBe('+100% vs previous period');
    expect(periodChange(2, 0, 'custom')).toBe('none in previous period');
  });
});
