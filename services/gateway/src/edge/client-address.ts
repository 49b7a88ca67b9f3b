import type { Request } from 'express';
import { clientKey as addressKey } from '@shortener/chassis';

/**
 * The client's address: the socket's peer, or what a trusted proxy says (Express resolves
 * X-Forwarded-For against TRUSTED_PROXIES into req.ip). IPv4 peers read as plain IPv4.
 */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** Who a per-address rate limit counts against: IPv6 by its /64, IPv4 by its address. */
export function clientKey(req: Request): string {
  return addressKey(clientAddress(req));
}
