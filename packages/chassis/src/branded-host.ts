import { hostname } from 'node:os';

/** A name the domains API could verify: two labels or more, letters, digits and hyphens. */
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
 * The rule every edge and the redirect share (as nginx's default server does,
 * infra/edge/shortener.conf.template): a request's Host names a branded domain when it is a
 * name of two labels or more that is none of `own` (host[:port] entries: PUBLIC_ORIGIN's host,
 * SHORT_LINK_HOSTS) nor this machine's name, not localhost nor under it, not an address.
 * Answers that name, or undefined for the product's own hosts (none, an address, one label),
 * which no domain can be: the domains API refuses them.
 */
export function brandedHostOf(
  own: readonly string[],
): (header: string | undefined) => string | undefined {
  const names = new Set([...own, hostname()].map(hostNameOf).filter((name) => name !== ''));
  const test = (header: string | undefined): string | undefined => {
    const name = hostNameOf(header);
    if (names.has(name) || !DOTTED_NAME.test(name) || /^[0-9.]+$/.test(name)) return undefined;
    return name === 'localhost' || name.endsWith('.localhost') ? undefined : name;
  };
  // Asked on every request, mostly with the Host of the one before: that answer is kept.
  let lastHeader: string | undefined;
  let lastAnswer: string | undefined;
  return (header) => {
    if (header !== lastHeader) {
      lastAnswer = test(header);
      lastHeader = header;
    }
    return lastAnswer;
  };
}
