// The client's address, for the gateway and the redirect service alike.
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { compileTrustedProxies } from './trusted-proxies';

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
 * TRUSTED_PROXIES as compileTrustedProxies reads it (addresses, CIDR ranges, `loopback`,
 * `linklocal`, `uniquelocal`). Answers are remembered per address: proxy-addr parses the
 * address on every check (bench/redirect-caches.mjs measures what the memo saves).
 */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const trust = compileTrustedProxies(entries);
  const memo = new Map<string, boolean>();
  return {
    any: entries.length > 0,
    has(address) {
      let trusted = memo.get(address);
      if (trusted === undefined) {
        trusted = trust(address, 0);
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
  const peer = normalize(req.socket.remoteAddress ?? '');
  if (!trusted.any || !trusted.has(peer)) return peer || 'unknown';
  return forwardedClient(req, peer, trusted);
}

/**
 * The visitor's address for a request on the edge's Unix socket (UNIX_SOCKET), which has no
 * peer address: the edge is the proxy, so its X-Forwarded-For is walked as a trusted proxy's
 * is; `unknown` when it named no usable address.
 */
export function clientIpFromEdge(req: IncomingMessage, trusted: TrustedProxies): string {
  return forwardedClient(req, 'unknown', trusted);
}

/** X-Forwarded-For from the right, past trusted proxies; `peer` when it names nobody usable. */
function forwardedClient(req: IncomingMessage, peer: string, trusted: TrustedProxies): string {
  const header = req.headers['x-forwarded-for'];
  if (!header) return peer;
  const hops = (Array.isArray(header) ? header.join(',') : header).split(',');
  let address = peer;
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = normalize((hops[i] ?? '').trim());
    if (isIP(hop) === 0) return address;
    address = hop;
    if (!trusted.has(hop)) return hop;
  }
  return address;
}
