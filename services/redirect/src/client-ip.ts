import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

function normalize(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** Parses TRUSTED_PROXIES entries: single addresses or CIDR ranges, IPv4 or IPv6. */
export function trustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    if (family === 0) throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or range`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The visitor's address: the socket's, unless the socket is a trusted proxy, in which case
 * X-Forwarded-For is walked from the right past trusted proxies. Never believes a header
 * from anyone else, so a visitor cannot choose the address we record.
 */
export function clientIp(req: IncomingMessage, trusted: BlockList, anyTrusted: boolean): string {
  let address = normalize(req.socket.remoteAddress ?? '');
  if (!anyTrusted || !isTrusted(trusted, address)) return address || 'unknown';
  const header = req.headers['x-forwarded-for'];
  if (!header) return address;
  const hops = (Array.isArray(header) ? header.join(',') : header).split(',');
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = normalize((hops[i] ?? '').trim());
    if (isIP(hop) === 0) return address;
    address = hop;
    if (!isTrusted(trusted, hop)) return hop;
  }
  return address;
}
