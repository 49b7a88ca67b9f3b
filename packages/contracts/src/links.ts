import { z } from 'zod';
import { WEB_APP_PAGES } from './web-pages';
import { linkRulesAnswerShape } from './link-rules';

/** Generated short codes: 7 characters of base62, case-sensitive. */
export const SHORT_CODE_LENGTH = 7;
export const SHORT_CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A back-half a signed-in user chooses (an alias): its length and its characters. */
export const ALIAS_MIN_LENGTH = 4;
export const ALIAS_MAX_LENGTH = 50;
const ALIAS_PATTERN = /^[0-9A-Za-z_-]{4,50}$/;

/**
 * What names a link anywhere (the redirect, the API, analytics, the visit codec, the cache):
 * a generated code or an alias, which is a code like any other once created. Every
 * generated code matches it too.
 */
export const SHORT_CODE_PATTERN = ALIAS_PATTERN;

export function isShortCode(value: string): boolean {
  return SHORT_CODE_PATTERN.test(value);
}

/**
 * The first path segments the gateway and the edge serve themselves, never the web app
 * (the gateway hands every other GET to the page).
 */
export const SERVER_PATH_SEGMENTS = [
  'api',
  'r',
  'login',
  'logout',
  'auth',
  'healthz',
  'readyz',
  'metrics',
] as const;

/** The first path segments of the web app: its routes and its files. */
export const PAGE_PATH_SEGMENTS = [
  'profile',
  'analytics',
  'settings',
  'tc',
  'privacy_policy',
  'assets',
  'favicon.svg',
  'robots.txt',
  ...Object.values(WEB_APP_PAGES),
] as const;

/**
 * Aliases nobody may choose, compared without letter case: the app's own paths, so that no
 * short link reads like a page or a call of the app.
 */
export const RESERVED_ALIASES: readonly string[] = [...SERVER_PATH_SEGMENTS, ...PAGE_PATH_SEGMENTS];

/** What the server answers when it does not take an alias. */
export const ALIAS_MESSAGES = {
  oneOnly: 'Give one alias only.',
  format: `An alias is ${ALIAS_MIN_LENGTH} to ${ALIAS_MAX_LENGTH} characters of A-Z, a-z, 0-9, - and _.`,
  reserved: 'This alias is reserved: choose another.',
  taken: 'Alias already taken',
  recentlyDeleted: 'This alias belonged to a deleted link and cannot be chosen again yet.',
  loginRequired: 'Login required to choose an alias.',
} as const;

/**
 * Days a removed link's code is kept from reuse: as long as analytics keeps its tombstone
 * (which drops that code's late visits) by default, so no new link loses its visits to it
 * or inherits the old one's cached redirect.
 */
export const DELETED_CODE_KEPT_DAYS = 90;

export type AliasCheck = { ok: true; alias: string } | { ok: false; message: string };

/** The rules of an alias that need no store: its form, and not a reserved word. */
export function checkAlias(raw: unknown): AliasCheck {
  if (typeof raw !== 'string' || !ALIAS_PATTERN.test(raw))
    return { ok: false, message: ALIAS_MESSAGES.format };
  const folded = raw.toLowerCase();
  if (RESERVED_ALIASES.some((word) => word.toLowerCase() === folded)) {
    return { ok: false, message: ALIAS_MESSAGES.reserved };
  }
  return { ok: true, alias: raw };
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

/**
 * Editing a link (PATCH /api/links/{urlID}): what is refused besides shorten's URL rules
 * (TARGET_URL_MESSAGES), which apply to a new destination as they do to a new link.
 */
export const EDIT_LINK_MESSAGES = {
  notAnObject: 'Send a JSON object with url, days, domain or a rule to change.',
  nothingToChange: 'Give url, days, domain or a rule (ios, android, geo, password, maxVisits).',
  days: `days must be one of ${EXPIRY_DAYS.join(', ')}.`,
  unknownField: 'Only url, days, domain, ios, android, geo, password and maxVisits can be changed.',
} as const;

/**
 * Undoing a delete: the web app offers Undo this long after a delete; the links service keeps
 * a deleted link restorable for DELETE_UNDO_WINDOW_MS (default below, never less than the
 * offer plus a second for the round trip), then purges it with its visits.
 */
export const DELETE_UNDO_OFFER_MS = 5_000;
export const DELETE_UNDO_WINDOW_DEFAULT_MS = 10_000;
export const DELETE_UNDO_WINDOW_MIN_MS = DELETE_UNDO_OFFER_MS + 1_000;

export const shortLinkSchema = z.object({
  urlID: z.string(),
  originalUrl: z.string(),
  /** ISO 8601 */
  createdAt: z.string(),
  /** Milliseconds since the epoch. */
  expiresAt: z.number().int(),
  visitCount: z.number().int().nonnegative(),
  // Beside SPEC's fields, each only when set: a plain main-origin link answers as before.
  ...linkRulesAnswerShape,
});
export type ShortLink = z.infer<typeof shortLinkSchema>;
