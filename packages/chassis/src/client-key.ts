import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * An IP address as ipaddr.js holds it, or null for anything else (names, the numeric and
 * hex shorthands of IPv4 that ipaddr.js would read but node:net does not). ipaddr.js reads
 * most IPv6 spellings; the rest (`64:ff9b::192.0.2.1`) as the URL parser writes them. A zone
 * (`fe80::1%eth0`) is dropped. For what counts addresses (clientKey) and what masks them.
 */
export function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const text = address.split('%', 1)[0] ?? '';
  const family = isIP(text);
  if (family === 4) return ipaddr.IPv4.parse(text);
  if (family !== 6) return null;
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  const canonical = new URL(`http://[${text}]`).hostname.slice(1, -1);
  return ipaddr.IPv6.isValid(canonical) ? ipaddr.IPv6.parse(canonical) : null;
}

/** The one client every loopback address (127.0.0.0/8, ::1) counts as. */
export const LOOPBACK_CLIENT = '127.0.0.0/8';

/**
 * Who a per-client budget (rate limits, the redirect's miss budget) counts against, for an
 * address. One IPv6 subscriber usually holds a whole /64 (2^64 addresses to rotate through),
 * so IPv6 counts by its /64; IPv4, also when written as IPv4-mapped IPv6 (in any notation),
 * by its address. Every loopback address is one client, as a /64 is: any program on this
 * machine may bind any of 127.0.0.0/8. Anything that is not an address is its own key.
 */
export function clientKey(address: string): string {
  const parsed = parseAddress(address);
  if (parsed === null) return address;
  const ipv4 =
    parsed.kind() === 'ipv4' ? (parsed as ipaddr.IPv4) : mappedIPv4(parsed as ipaddr.IPv6);
  if (parsed.range() === 'loopback' || ipv4?.range() === 'loopback') return LOOPBACK_CLIENT;
  if (ipv4 !== undefined) return ipv4.toString();
  const ipv6 = parsed as ipaddr.IPv6;
  return `${new ipaddr.IPv6([...ipv6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

function mappedIPv4(ipv6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  return ipv6.isIPv4MappedAddress() ? ipv6.toIPv4Address() : undefined;
}
