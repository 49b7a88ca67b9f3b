import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { DOMAIN_HOST_MAX, DOMAIN_LABEL_MAX, DOMAIN_MESSAGES } from '@shortener/contracts';
import { isLoopbackHost } from '@shortener/link-cache';

export type DomainHostCheck = { ok: true; host: string } | { ok: false; message: string };

/** What a URL would take for part of the host, and no domain name holds. */
const NOT_IN_A_NAME = /[\s/\\:@?#%[\]]/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * A host a user may add as a domain, as it is written everywhere: lower case, IDNA to
 * punycode, a trailing dot dropped; at least two labels, none an IP address, not one of
 * `ownHosts` (this service's host names) nor a loopback name.
 */
export function checkDomainHost(raw: unknown, ownHosts: readonly string[]): DomainHostCheck {
  const refuse = (message: string): DomainHostCheck => ({ ok: false, message });
  if (typeof raw !== 'string' || raw.trim() === '') return refuse(DOMAIN_MESSAGES.hostRequired);
  const given = raw.trim().replace(/\.$/, '');
  if (isIP(given) !== 0 || given.startsWith('[')) return refuse(DOMAIN_MESSAGES.ipLiteral);
  // domainToASCII reads a whole URL host: it would drop a path or take a port's colon.
  if (NOT_IN_A_NAME.test(given)) return refuse(DOMAIN_MESSAGES.hostInvalid);
  const host = domainToASCII(given).toLowerCase();
  if (host === '') return refuse(DOMAIN_MESSAGES.hostInvalid);
  // The URL parser reads some names as IPv4 (0x7f.1 is 127.0.0.1).
  if (isIP(host) !== 0) return refuse(DOMAIN_MESSAGES.ipLiteral);
  const labels = host.split('.');
  if (labels.length < 2) return refuse(DOMAIN_MESSAGES.oneLabel);
  if (host.length > DOMAIN_HOST_MAX || labels.some((label) => label.length > DOMAIN_LABEL_MAX)) {
    return refuse(DOMAIN_MESSAGES.tooLong);
  }
  if (!labels.every((label) => LABEL.test(label))) return refuse(DOMAIN_MESSAGES.hostInvalid);
  if (isLoopbackHost(host) || ownHosts.includes(host)) return refuse(DOMAIN_MESSAGES.ownHost);
  return { ok: true, host };
}

/** The host names of host[:port] entries (PUBLIC_ORIGIN's host, SHORT_LINK_HOSTS). */
export function hostNames(hosts: readonly string[]): string[] {
  return hosts.flatMap((host) => {
    try {
      return [new URL(`http://${host}`).hostname];
    } catch {
      return [];
    }
  });
}
