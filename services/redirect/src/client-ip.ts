import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

function normalize(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** The proxies whose X-Forwarded-For is believed. */
export interface TrustedProxies {
  /** False when none are configured: the header is never read. */
  readonly any: boolean;
  has(address: string): boolean;
}

/** Addresses remembered per instance: proxies are few, the bound keeps forged hops cheap. */
const MEMO_MAX = 4096;

/**
 * Parses TRUSTED_PROXIES entries: single addresses or CIDR ranges, IPv4 or IPv6. Answers are
 * remembered per address, since a BlockList check costs microseconds on every redirect.
 */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    if (family === 0) throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or range`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  const memo = new Map<string, boolean>();
  return {
    any: entries.length > 0,
    has(address) {
      let trusted = memo.get(address);
      if (trusted === undefined) {
        const family = isIP(address);
        trusted = family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
        if (memo.size >= MEMO_MAX) memo.clear();
        memo.set(address, trusted);
      }
      return trusted;
    },
  };
}

/**
 * The visitor's address: the socket's, unless the socket is a trusted proxy, in which case
 * X-Forwarded-For is walked from the right past trusted proxies. Never believes a header
 * from anyone else, so a visitor cannot choose the address we record.
 */
export function clientIp(req: IncomingMessage, trusted: TrustedProxies): string {
  let address = normalize(req.socket.remoteAddress ?? '');
  if (!trusted.any || !trusted.has(address)) return address || 'unknown';
  const header = req.headers['x-forwarded-for'];
  if (!header) return address;
  const hops = (Array.isArray(header) ? header.join(',') : header).split(',');
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = normalize((hops[i] ?? '').trim());
    if (isIP(hop) === 0) return address;
    address = hop;
    if (!trusted.has(hop)) return hop;
  }
  return address;
}
