import { z } from 'zod';

/**
 * Branded domains (issue 40): a user adds a host of their own, proves it with a TXT record,
 * and (later) serves links on it. The links service keeps them; the gateway serves the calls.
 */

/** The longest host name DNS carries (RFC 1035), and the longest label. */
export const DOMAIN_HOST_MAX = 253;
export const DOMAIN_LABEL_MAX = 63;

/** Where the owner puts the TXT record that proves the domain theirs. */
export const DOMAIN_VERIFICATION_PREFIX = '_shortener-verify';

export const DOMAIN_MESSAGES = {
  hostRequired: 'Enter a domain name, such as go.example.com.',
  hostInvalid:
    'A domain name is made of letters, digits and hyphens in labels separated by dots, ' +
    'such as go.example.com.',
  ipLiteral: 'Enter a domain name, not an IP address.',
  oneLabel: 'Enter a whole domain name with at least one dot, such as go.example.com.',
  tooLong: `A domain name is at most ${DOMAIN_HOST_MAX} characters, each label at most ${DOMAIN_LABEL_MAX}.`,
  ownHost: "This service's own host cannot be added as a domain.",
  taken: 'This domain is already added by another account.',
  notFound: 'Domain not found',
  /** 422: no TXT record of that name at all. */
  recordMissing: (name: string, value: string) =>
    `No TXT record ${name} was found. Create it with the value ${value} at your DNS ` +
    'provider, then verify again (a new record can take a few minutes to show).',
  /** 422: TXT records of that name, none with the value. */
  recordDifferent: (name: string, value: string) =>
    `The TXT record ${name} does not hold ${value}. Set it to that value, then verify again.`,
  /** 422: the DNS servers did not answer (timeout, SERVFAIL...). */
  lookupFailed: (name: string) => `The DNS lookup of ${name} failed. Try again in a few minutes.`,
} as const;

/** The TXT record that proves a host its owner's: its name and the value it must hold. */
export function verificationRecord(host: string, token: string) {
  return {
    type: 'TXT' as const,
    name: `${DOMAIN_VERIFICATION_PREFIX}.${host}`,
    value: `shortener-verify=${token}`,
  };
}

/** POST /api/domains: the host to add; checked by the links service (it knows our own hosts). */
export const addDomainRequestSchema = z.object({
  host: z
    .string({ error: DOMAIN_MESSAGES.hostRequired })
    .describe(
      'The host name, such as go.example.com: any letter case, Unicode names as punycode ' +
        `(bücher.example is xn--bcher-kva.example), at most ${DOMAIN_HOST_MAX} characters, ` +
        "at least two labels; not an IP address nor this service's own host.",
    ),
});
export type AddDomainRequest = z.infer<typeof addDomainRequestSchema>;

export const domainSchema = z.object({
  /** Lower case, punycode: as the domain is written everywhere. */
  host: z.string(),
  verified: z.boolean(),
  /** The record to create (and to keep: it is what proves the domain its owner's). */
  verification: z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() }),
});
export type Domain = z.infer<typeof domainSchema>;

/** GET /api/domains: the user's domains, newest first. */
export const domainsSchema = z.array(domainSchema);

/** The links service's answer to an add: the domain, and whether this call created it. */
export const addedDomainSchema = z.object({ created: z.boolean(), domain: domainSchema });
export const domainListSchema = z.object({ domains: domainsSchema });
