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
 * The IPv4 address an IPv6 address carries to its IPv4 host, or null: IPv4-mapped
 * (::ffff:a.b.c.d), NAT64's well-known and local-use prefixes (64:ff9b::/96, RFC 6052;
 * 64:ff9b:1::/48, RFC 8215), which a NAT64 gateway turns into the IPv4 address they end with,
 * and 6to4 (2002:AABB:CCDD::/48, RFC 3056), which names the IPv4 host after its prefix.
 */
function embeddedIpv4(parts: readonly number[]): string | null {
  const ipv4 = (high: number, low: number): string =>
    [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  const [p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0] = parts;
  if (p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0xffff) {
    return ipv4(p6, p7);
  }
  if (
    p0 === 0x64 &&
    p1 === 0xff9b &&
    (p2 === 1 || (p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0))
  ) {
    return ipv4(p6, p7);
  }
  return p0 === 0x2002 ? ipv4(p1, p2) : null;
}

/**
 * A parsed URL's hostname as compared: without the trailing dot DNS allows (sho.rt. is
 * sho.rt), an IPv6 address that carries an IPv4 one (embeddedIpv4) as that IPv4 address.
 */
function canonicalHost(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  const parts = ipv6Parts(host);
  return (parts && embeddedIpv4(parts)) ?? host;
}

/**
 * The addresses a host name spells as wildcard DNS services answer them (`127.0.0.1.nip.io`,
 * `7f000001.nip.io`, `--1.sslip.io`): such a name is judged as its address, whoever serves its DNS.
 */
function spelledAddresses(host: string): string[] {
  if (!/[a-z]/.test(host) || host.startsWith('[')) return [];
  const found: string[] = [];
  for (const [, a, b, c, d] of host.matchAll(
    /(?<=^|[.-])(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})(?=\.)/g,
  )) {
    found.push(`${a}.${b}.${c}.${d}`);
  }
  for (const [, hex] of host.matchAll(/(?<=^|[.-])([0-9a-f]{8})(?=\.)/g)) {
    const value = Number.parseInt(hex!, 16);
    found.push([value >>> 24, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff].join('.'));
  }
  for (const label of host.split('.')) {
    const address = label.replace(/-/g, ':');
    if (label.includes('--') && ipaddr.IPv6.isValid(address))
      found.push(canonicalHost(`[${address}]`));
  }
  return found;
}

/** 0.0.0.0/8 reaches this machine too (Linux connects it to the loopback interface). */
const isLoopbackIpv4 = (firstOctet: number): boolean => firstOctet === 127 || firstOctet === 0;

/**
 * Whether a parsed URL's host is the machine the link is opened on: localhost names, loopback or
 * unspecified addresses in any spelling (IPv4 inside IPv6 included), and names that spell them.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = canonicalHost(hostname);
  if (spelledAddresses(host).some(isLoopbackHost)) return true;
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
  const hosts = [host, ...spelledAddresses(host)];
  if (isLoopbackHost(host) || ownHosts.some((own) => hosts.includes(ownHostName(own)))) {
    return refused(TARGET_URL_MESSAGES.ownLinks);
  }
  // Stored as given: internationalised hosts keep the form the user typed.
  return { ok: true, url: raw };
}
