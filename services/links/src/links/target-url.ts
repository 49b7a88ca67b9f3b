import ipaddr from 'ipaddr.js';
import { MAX_URL_LENGTH, TARGET_URL_MESSAGES } from '@shortener/contracts';

/** Names that always mean the machine itself (RFC 6761, and the usual /etc/hosts aliases). */
const LOOPBACK_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
]);

/** The parts of a bracketed IPv6 host ([::1]), or null for anything else. */
function ipv6Parts(host: string): number[] | null {
  if (!host.startsWith('[') || !host.endsWith(']')) return null;
  const address = host.slice(1, -1);
  return ipaddr.IPv6.isValid(address) ? ipaddr.IPv6.parse(address).parts : null;
}

/**
 * A parsed URL's hostname as compared: without the trailing dot DNS allows (sho.rt. is
 * sho.rt), an IPv4-mapped IPv6 address as the IPv4 address it is.
 */
function canonicalHost(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  const parts = ipv6Parts(host);
  if (!parts) return host;
  const ipv6 = new ipaddr.IPv6(parts);
  return ipv6.isIPv4MappedAddress() ? ipv6.toIPv4Address().toString() : host;
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
  const parts = ipv6Parts(host);
  // ::, ::1 and IPv4-compatible addresses (::127.0.0.1) have six zero groups first.
  return parts !== null && !parts.slice(0, 6).some(Boolean) && isLoopbackIpv4((parts[6] ?? 0) >> 8);
}

/** An own host (host[:port], a name or an address) as compared with a parsed URL's host. */
function ownHostName(own: string): string {
  try {
    return canonicalHost(new URL(`http://${own}`).hostname);
  } catch {
    return canonicalHost(own);
  }
}

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
