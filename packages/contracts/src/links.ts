import { z } from 'zod';

/** Short codes: 7 characters of base62, case-sensitive. */
export const SHORT_CODE_LENGTH = 7;
export const SHORT_CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const SHORT_CODE_PATTERN = /^[0-9A-Za-z]{7}$/;

export function isShortCode(value: string): boolean {
  return SHORT_CODE_PATTERN.test(value);
}

export const EXPIRY_DAYS = [7, 15, 30, 60] as const;
export type ExpiryDays = (typeof EXPIRY_DAYS)[number];
export const DEFAULT_EXPIRY_DAYS: ExpiryDays = 7;
/** The longest expiry an anonymous visitor may choose. */
export const ANONYMOUS_MAX_EXPIRY_DAYS = 7;
export const DAY_MS = 86_400_000;

/** Anything that is not exactly one of the offered choices falls back to the default. */
export function parseExpiryDays(raw: unknown): ExpiryDays {
  if (typeof raw !== 'string' && typeof raw !== 'number') return DEFAULT_EXPIRY_DAYS;
  const text = String(raw).trim();
  if (!/^\d{1,3}$/.test(text)) return DEFAULT_EXPIRY_DAYS;
  const days = Number(text);
  return (EXPIRY_DAYS as readonly number[]).includes(days)
    ? (days as ExpiryDays)
    : DEFAULT_EXPIRY_DAYS;
}

export const MAX_URL_LENGTH = 2048;

function hostKey(hostname: string, port: string): string {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return port === '' ? name : `${name}:${port}`;
}

function ownHostKey(own: string): string {
  try {
    const parsed = new URL(`http://${own}`);
    return hostKey(parsed.hostname, parsed.port);
  } catch {
    return own.toLowerCase();
  }
}

export type TargetUrlCheck = { ok: true; url: string } | { ok: false; message: string };

/**
 * The server's rules for a URL to shorten (DESIGN.md, "Shorten"). `ownHosts` are the hosts
 * this service answers on, so that a short link cannot point at another short link.
 */
export function checkTargetUrl(raw: unknown, ownHosts: readonly string[] = []): TargetUrlCheck {
  if (Array.isArray(raw)) {
    return { ok: false, message: 'Give one URL only.' };
  }
  if (typeof raw !== 'string' || raw.trim() === '') {
    return { ok: false, message: 'A URL is required.' };
  }
  if (raw.length > MAX_URL_LENGTH) {
    return { ok: false, message: `The URL is longer than ${MAX_URL_LENGTH} characters.` };
  }
  if (/[\s\p{Cc}]/u.test(raw)) {
    return { ok: false, message: 'The URL must not contain spaces or control characters.' };
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { ok: false, message: 'The URL is not a valid absolute URL.' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, message: 'Only http and https URLs can be shortened.' };
  }
  if (parsed.hostname === '') {
    return { ok: false, message: 'The URL must have a host.' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, message: 'URLs with a user name or password cannot be shortened.' };
  }
  // Compared as host[:port] without the trailing dot DNS allows (sho.rt. is sho.rt).
  const host = hostKey(parsed.hostname, parsed.port);
  if (ownHosts.some((own) => ownHostKey(own) === host)) {
    return { ok: false, message: 'Short links of this service cannot be shortened again.' };
  }
  // Stored as given: internationalised hosts keep the form the user typed.
  return { ok: true, url: raw };
}

export const shortLinkSchema = z.object({
  urlID: z.string(),
  originalUrl: z.string(),
  /** ISO 8601 */
  createdAt: z.string(),
  /** Milliseconds since the epoch. */
  expiresAt: z.number(),
  visitCount: z.number().int().nonnegative(),
});
export type ShortLink = z.infer<typeof shortLinkSchema>;
