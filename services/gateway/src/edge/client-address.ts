import type { Request } from 'express';
import ipaddr from 'ipaddr.js';

/**
 * The client's address: the socket's peer, or what a trusted proxy says (Express resolves
 * X-Forwarded-For against TRUSTED_PROXIES into req.ip). IPv4 peers read as plain IPv4.
 */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * Who a per-address rate limit counts against. One IPv6 subscriber usually holds a whole
 * /64 (2^64 addresses to rotate through), so IPv6 counts by its /64; IPv4, also written as
 * IPv4-mapped IPv6 (in any notation), by its address.
 */
export function clientKey(req: Request): string {
  return addressKey(clientAddress(req));
}

export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...ipv6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
