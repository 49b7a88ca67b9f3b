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

/** What the server answers when it does not shorten a URL (the links service's target-url check). */
export const TARGET_URL_MESSAGES = {
  oneOnly: 'Give one URL only.',
  required: 'A URL is required.',
  tooLong: `The URL is longer than ${MAX_URL_LENGTH} characters.`,
  spaces: 'The URL must not contain spaces or control characters.',
  notAbsolute: 'The URL is not a valid absolute URL.',
  scheme: 'Only http and https URLs can be shortened.',
  noHost: 'The URL must have a host.',
  credentials: 'URLs with a user name or password cannot be shortened.',
  ownLinks: 'Short links of this service cannot be shortened again.',
} as const;

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
