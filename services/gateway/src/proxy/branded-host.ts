import { hostname } from 'node:os';

/** A name nginx and the domains API could take for a branded domain: two labels or more. */
const DOTTED_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;

/** A Host header's name: lower case, without its port or a trailing dot ('' when none). */
export function hostNameOf(header: string | undefined): string {
  if (header === undefined) return '';
  const host = header.trim().toLowerCase();
  // A bracketed IPv6 address keeps its brackets; its port, if any, follows them.
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).replace(/\.$/, '');
}

/**
 * The product's own host names from host[:port] entries (PUBLIC_ORIGIN's host,
 * SHORT_LINK_HOSTS), with this machine's name.
 */
export function ownHostNames(entries: readonly string[]): Set<string> {
  return new Set([...entries, hostname()].map(hostNameOf).filter((name) => name !== ''));
}

/**
 * Whether a request's Host names a branded domain, as the nginx edge's default server tells
 * (infra/edge/shortener.conf.template): a name of two labels or more that is none of `own`,
 * not localhost nor under it, not an IP address. Every other Host (none, an address, a
 * one-label name) is the product's own, answered as before; no domain can be one of them
 * (the domains API refuses them).
 */
export function brandedHostTest(own: ReadonlySet<string>): (header: string | undefined) => boolean {
  const test = (header: string | undefined): boolean => {
    const name = hostNameOf(header);
    if (own.has(name) || !DOTTED_NAME.test(name)) return false;
    if (name === 'localhost' || name.endsWith('.localhost')) return false;
    return !/^[0-9.]+$/.test(name);
  };
  // Asked on every request, mostly with the Host of the one before: that answer is kept.
  let lastHeader: string | undefined;
  let lastAnswer = false;
  return (header) => {
    if (header !== lastHeader) {
      lastAnswer = test(header);
      lastHeader = header;
    }
    return lastAnswer;
  };
}
