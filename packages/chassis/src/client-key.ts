import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** ipaddr.js reads most IPv6 spellings; the rest (`64:ff9b::192.0.2.1`) as the URL parser writes them. */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (ipaddr.isValid(address)) return ipaddr.parse(address);
  if (isIP(address) !== 6) return null;
  const canonical = new URL(`http://[${address.split('%', 1)[0]}]`).hostname.slice(1, -1);
  return ipaddr.isValid(canonical) ? ipaddr.parse(canonical) : null;
}

/**
 * Who a per-client budget (rate limits, the redirect's miss budget) counts against, for an
 * address. One IPv6 subscriber usually holds a whole /64 (2^64 addresses to rotate through),
 * so IPv6 counts by its /64; IPv4, also when written as IPv4-mapped IPv6 (in any notation),
 * by its address. Anything that is not an address is its own key.
 */
export function clientKey(address: string): string {
  const parsed = parse(address);
  if (parsed === null) return address;
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...ipv6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
