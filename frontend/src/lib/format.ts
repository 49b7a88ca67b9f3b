const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface Remaining {
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** Whole days, hours, minutes and seconds left until `expiresAt`; zero once it has passed. */
export function remainingTime(expiresAt: number, now: number): Remaining {
  const left = Math.max(0, expiresAt - now);
  return {
    days: Math.floor(left / DAY),
    hours: Math.floor((left % DAY) / HOUR),
    minutes: Math.floor((left % HOUR) / MINUTE),
    seconds: Math.floor((left % MINUTE) / SECOND),
  };
}

/** 'Expires In' / 'Expires in': e.g. '6d 23h 04m 05s', or 'Expired'. */
export function formatRemaining(expiresAt: number, now: number): string {
  if (expiresAt <= now) return 'Expired';
  const { days, hours, minutes, seconds } = remainingTime(expiresAt, now);
  return `${String(days)}d ${pad(hours)}h ${pad(minutes)}m ${pad(seconds)}s`;
}

/** dd/mm/yyyy in local time, or '' for a value that is not a date. */
export function formatDate(value: string | number): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return `${pad(date.getDate())}/${pad(date.getMonth() + 1)}/${String(date.getFullYear())}`;
}

/** hh:mm:ss in local time on a 24-hour clock, or '' for a value that is not a date. */
export function formatTime(value: string | number): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** 'dd/mm/yyyy hh:mm:ss', as 'Created at' and visit time stamps read. */
export function formatDateTime(value: string | number): string {
  const date = formatDate(value);
  return date && `${date} ${formatTime(value)}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
