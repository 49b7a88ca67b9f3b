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

/**
 * The eight 16-bit groups of an IPv6 address (a zone and a dotted IPv4 tail allowed), or
 * null when it is not one.
 */
export function ipv6Groups(address: string): number[] | null {
  const text = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (half: string | undefined): number[] | null => {
    if (!half) return [];
    const groups: number[] = [];
    for (const piece of half.split(':')) {
      if (/^[0-9a-f]{1,4}$/i.test(piece)) groups.push(parseInt(piece, 16));
      else if (/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) {
        const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
        groups.push((a << 8) | b, (c << 8) | d);
      } else return null;
    }
    return groups;
  };
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing < 1 ? null : [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** Names that always mean the machine itself (RFC 6761, and the usual /etc/hosts aliases). */
const LOOPBACK_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
]);

/**
 * A parsed URL's hostname as compared: without the trailing dot DNS allows (sho.rt. is
 * sho.rt), an IPv4-mapped IPv6 address as the IPv4 address it is.
 */
function canonicalHost(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  const groups = host.startsWith('[') ? ipv6Groups(host) : null;
  if (!groups || groups.slice(0, 5).some(Boolean) || groups[5] !== 0xffff) return host;
  const [g = 0, h = 0] = groups.slice(6);
  return [g >> 8, g & 0xff, h >> 8, h & 0xff].join('.');
}

/** 0.0.0.0/8 reaches this machine too (Linux connects it to the loopback interface). */
const isLoopbackIpv4 = (firstOctet: number): boolean => firstOctet === 127 || firstOctet === 0;

/**
 * Whether a parsed URL's hostname is the machine the link is opened on: localhost names, and
 * loopback or unspecified addresses however they were spelled (the URL parser has already
 * turned 127.1, 0x7f000001, 2130706433 or 0 into dotted IPv4, and IPv6 into its short
 * form), IPv4-mapped and IPv4-compatible IPv6 included.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = canonicalHost(hostname);
  if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost')) return true;
  const ipv4 = /^(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.exec(host);
  if (ipv4) return isLoopbackIpv4(Number(ipv4[1]));
  const groups = host.startsWith('[') ? ipv6Groups(host) : null;
  // ::, ::1 and IPv4-compatible addresses (::127.0.0.1) have six zero groups first.
  return (
    groups !== null && !groups.slice(0, 6).some(Boolean) && isLoopbackIpv4((groups[6] ?? 0) >> 8)
  );
}

/** An own host (host[:port], a name or an address) as compared with a parsed URL's host. */
function ownHostName(own: string): string {
  try {
    return canonicalHost(new URL(`http://${own}`).hostname);
  } catch {
    return canonicalHost(own);
  }
}

/** What the server answers when it does not shorten a URL (see `checkTargetUrl`). */
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
 * Why a URL is not shortened: `malformed` is input the web page never sends (no URL, two,
 * not an absolute URL); `refused` is a rule the server applies to a URL the page accepts,
 * answered with a 403 and its message, which the page shows (SPEC section 8).
 */
export type TargetUrlRefusal = 'malformed' | 'refused';

export type TargetUrlCheck =
  { ok: true; url: string } | { ok: false; reason: TargetUrlRefusal; message: string };

const refused = (message: string): TargetUrlCheck => ({ ok: false, reason: 'refused', message });

/**
 * The server's rules for a URL to shorten (DESIGN.md, "Shorten"). `ownHosts` are the hosts
 * this service answers on (host[:port], names or addresses), so that a short link cannot
 * point at another short link; loopback hosts are refused whatever `ownHosts` holds.
 */
export function checkTargetUrl(raw: unknown, ownHosts: readonly string[] = []): TargetUrlCheck {
  if (Array.isArray(raw)) {
    return { ok: false, reason: 'malformed', message: TARGET_URL_MESSAGES.oneOnly };
  }
  if (typeof raw !== 'string' || raw.trim() === '') {
    return { ok: false, reason: 'malformed', message: TARGET_URL_MESSAGES.required };
  }
  if (raw.length > MAX_URL_LENGTH) {
    return refused(TARGET_URL_MESSAGES.tooLong);
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { ok: false, reason: 'malformed', message: TARGET_URL_MESSAGES.notAbsolute };
  }
  // Checked on the text as given: the parser would quietly drop tabs and line breaks.
  if (/[\s\p{Cc}]/u.test(raw)) {
    return refused(TARGET_URL_MESSAGES.spaces);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return refused(TARGET_URL_MESSAGES.scheme);
  }
  if (parsed.hostname === '') {
    return { ok: false, reason: 'malformed', message: TARGET_URL_MESSAGES.noHost };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return refused(TARGET_URL_MESSAGES.credentials);
  }
  // No loops: nothing on one of our hosts, on any port, nor on the machine the link is
  // opened on (where our short links answer in the local modes), in any spelling. Compared
  // as parsed, so IP literals in any notation and a trailing dot change nothing.
  const host = canonicalHost(parsed.hostname);
  if (isLoopbackHost(host) || ownHosts.some((own) => ownHostName(own) === host)) {
    return refused(TARGET_URL_MESSAGES.ownLinks);
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
