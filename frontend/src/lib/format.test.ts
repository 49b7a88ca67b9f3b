import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatRemaining, formatTime, remainingTime } from './format';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('Expires In', () => {
  const now = Date.UTC(2025, 0, 1);

  it('splits the time left into days, hours, minutes and seconds', () => {
    const expiresAt = now + 6 * DAY + 23 * HOUR + 4 * MINUTE + 5 * SECOND + 999;
    expect(remainingTime(expiresAt, now)).toEqual({ days: 6, hours: 23, minutes: 4, seconds: 5 });
    expect(formatRemaining(expiresAt, now)).toBe('6d 23h 04m 05s');
  });

  it('counts down by the second', () => {
    const expiresAt = now + 7 * DAY;
    expect(formatRemaining(expiresAt, now)).toBe('7d 00h 00m 00s');
    expect(formatRemaining(expiresAt, now + SECOND)).toBe('6d 23h 59m 59s');
    expect(formatRemaining(expiresAt, expiresAt - SECOND)).toBe('0d 00h 00m 01s');
  });

  it("reads 'Expired' once expiresAt has passed", () => {
    expect(formatRemaining(now, now)).toBe('Expired');
    expect(formatRemaining(now - DAY, now)).toBe('Expired');
    expect(remainingTime(now - DAY, now)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 0 });
  });
});

describe('Created at', () => {
  // Local time, so the expectations are built from a local date.
  const created = new Date(2025, 2, 4, 5, 6, 7).getTime();

  it('reads dd/mm/yyyy and hh:mm:ss on a 24-hour clock', () => {
    expect(formatDate(created)).toBe('04/03/2025');
    expect(formatTime(created)).toBe('05:06:07');
    expect(formatDateTime(new Date(created).toISOString())).toBe('04/03/2025 05:06:07');
    expect(formatTime(new Date(2025, 11, 31, 23, 59, 58).getTime())).toBe('23:59:58');
  });

  it('shows nothing for a value that is not a date', () => {
    expect(formatDate('yesterday-ish')).toBe('');
    expect(formatDateTime('')).toBe('');
  });
});
