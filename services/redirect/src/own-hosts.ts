/** host[:port] → host, lower-cased: a bracketed IPv6 literal keeps its brackets. */
function hostName(hostAndPort: string): string {
  const host = hostAndPort.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** A dotted IPv4 address, or a bracketed IPv6 one: never a branded domain. */
const IP_LITERAL = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[\d a-f:.]*\])$/;

/**
 * Tells this service's own hosts from branded ones, by the links service's rule: its own
 * are PUBLIC_ORIGIN's host and SHORT_LINK_HOSTS (ports aside), and loopback names. A branded
 * host is any other name of at least two labels (a domain is never an IP literal), with the
 * Host header lower-cased, its port dropped and a trailing dot taken off.
 */
export class OwnHosts {
  private readonly own: ReadonlySet<string>;

  constructor(publicOrigin: string, shortLinkHosts: readonly string[]) {
    const names = [new URL(publicOrigin).host, ...shortLinkHosts].map(hostName);
    this.own = new Set(['localhost', ...names]);
  }

  /** The branded host a request was sent to, or undefined for one of ours (or none). */
  brandedHost(header: string | undefined): string | undefined {
    if (header === undefined || header === '') return undefined;
    let host = hostName(header);
    if (host.endsWith('.')) host = host.slice(0, -1);
    if (!host.includes('.') || IP_LITERAL.test(host) || this.own.has(host)) return undefined;
    if (host.endsWith('.localhost')) return undefined;
    return host;
  }
}
