import ipaddr from 'ipaddr.js';
import { parseAddress } from '@shortener/chassis';

/** The address with its last octet zeroed. */
const maskIPv4 = (ipv4: ipaddr.IPv4): string =>
  new ipaddr.IPv4([...ipv4.octets.slice(0, 3), 0]).toString();

/**
 * Masks what identifies a person in an address: the last IPv4 octet, and every IPv6 bit after
 * the first 48 (the site prefix). IPv4-mapped IPv6 (how Node reports IPv4 clients on a dual
 * stack socket) is masked as IPv4. What is not an IP address is not stored, since it cannot be
 * masked and might itself identify someone.
 */
export function anonymizeIp(raw: string): string {
  const parsed = parseAddress(raw);
  if (parsed === null) return 'unknown';
  if (parsed.kind() === 'ipv4') return maskIPv4(parsed as ipaddr.IPv4);
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.isIPv4MappedAddress()) return `::ffff:${maskIPv4(ipv6.toIPv4Address())}`;
  return new ipaddr.IPv6([...ipv6.parts.slice(0, 3), 0, 0, 0, 0, 0]).toString();
}
