import { z } from 'zod';
import { DOMAIN_HOST_MAX } from './domains';

/**
 * Where a link lives (a branded domain of its owner) and the rules it answers by: the device's
 * and the country's destinations, a password, a visit cap. What the public API takes on
 * POST /api/links items and PATCH /api/links/{urlID} (every field optional, null removes it),
 * and what answers of a link carry (only what is set: a main-origin link without rules answers
 * exactly as before).
 */

/** The longest password a link takes (it is kept only as a hash). */
export const LINK_PASSWORD_MAX = 128;
/** The highest visit cap (links.links.max_visits is an int). */
export const MAX_VISITS_MAX = 2_147_483_647;
/** The rules' names as the public API writes them; `password` answers as `hasPassword`. */
export const LINK_RULE_FIELDS = ['ios', 'android', 'geo', 'password', 'maxVisits'] as const;
export type LinkRuleField = (typeof LINK_RULE_FIELDS)[number];

/** What the server answers (400) for a rule or a domain it does not take; each names its field. */
export const LINK_RULES_MESSAGES = {
  /** A destination of a rule refused by the URL's rules: the field, then url's own message. */
  url: (field: string, message: string) => `${field}: ${message}`,
  geo: 'geo must be an object of country codes to URLs, such as {"GB": "https://example.co.uk"}.',
  country: (code: string) =>
    `geo: ${JSON.stringify(code)} is not a country code: two letters of ISO 3166-1, such as GB.`,
  password: `password must be text of 1 to ${LINK_PASSWORD_MAX} characters.`,
  maxVisits: `maxVisits must be a whole number from 1 to ${MAX_VISITS_MAX}.`,
  domain: 'domain must be the host name of one of your verified domains, or null.',
  domainUnknown: (host: string) =>
    `domain: ${host} is not one of your domains. Add it under Domains, then verify it.`,
  domainUnverified: (host: string) =>
    `domain: ${host} is not verified yet. Create its TXT record and verify it under Domains.`,
} as const;

/** A branded link's short URL: what answers carry, so that no client builds it. */
export function brandedShortUrl(host: string, slug: string): string {
  return `https://${host}/${slug}`;
}

/** TARGET_URL_MESSAGES.required's words (links.ts imports this file: no import back). */
const URL_REQUIRED = 'A URL is required.';

const ruleUrl = (field: string) =>
  z
    // Its length and form are the links service's to check, with url's messages.
    .string({ error: LINK_RULES_MESSAGES.url(field, URL_REQUIRED) })
    .nullable()
    .optional();

/**
 * The placement and rules of PATCH /api/links/{urlID} (typed: the links service checks the
 * rest, with the same messages), and the fields a POST /api/links item may add.
 */
export const linkRulesInputShape = {
  domain: z
    .string({ error: LINK_RULES_MESSAGES.domain })
    .max(DOMAIN_HOST_MAX, { error: LINK_RULES_MESSAGES.domain })
    .nullable()
    .optional()
    .describe(
      'A verified domain of yours (its host, such as go.example.com): the link is served at ' +
        'https://{domain}/{alias} (a generated 7-character back-half without an alias), not on ' +
        "this service's /r/. null moves it back to this service's origin. API keys with " +
        'links:write may use domains; only a signed-in session manages them.',
    ),
  ios: ruleUrl('ios').describe(
    'Where iPhone and iPad visitors go (by User-Agent): an absolute http or https URL, as url. ' +
      'null removes it.',
  ),
  android: ruleUrl('android').describe(
    'Where Android visitors go (by User-Agent): an absolute http or https URL. null removes it.',
  ),
  geo: z
    .record(z.string(), z.string(), { error: LINK_RULES_MESSAGES.geo })
    .nullable()
    .optional()
    .describe(
      'Destinations by the visitor\'s country: {"GB": url, ...}, ISO 3166-1 alpha-2 codes ' +
        '(any letter case, stored upper case). A device rule wins over it. null removes it.',
    ),
  password: z
    .string({ error: LINK_RULES_MESSAGES.password })
    .min(1, { error: LINK_RULES_MESSAGES.password })
    .max(LINK_PASSWORD_MAX, { error: LINK_RULES_MESSAGES.password })
    .nullable()
    .optional()
    .describe(
      `A password of 1 to ${LINK_PASSWORD_MAX} characters the visitor must enter (kept only as ` +
        'a hash, never answered: answers carry hasPassword). null removes it.',
    ),
  maxVisits: z
    .number({ error: LINK_RULES_MESSAGES.maxVisits })
    .int({ error: LINK_RULES_MESSAGES.maxVisits })
    .min(1, { error: LINK_RULES_MESSAGES.maxVisits })
    .max(MAX_VISITS_MAX, { error: LINK_RULES_MESSAGES.maxVisits })
    .nullable()
    .optional()
    .describe(
      'The most visits the link counts: past it, it answers like an expired link. null ' +
        'removes it.',
    ),
};
export const linkRulesInputSchema = z.object(linkRulesInputShape);
export type LinkRulesInput = z.infer<typeof linkRulesInputSchema>;

/**
 * What an answer of a link adds, each only when set: its domain and full short URL (absent:
 * the main origin, `{origin}/r/{urlID}`), and its rules (the password only as hasPassword).
 */
export const linkRulesAnswerShape = {
  domain: z.string().optional().describe('The verified domain the link is served on.'),
  shortUrl: z
    .string()
    .optional()
    .describe("With a domain: the link's full short URL, https://{domain}/{alias}."),
  ios: z.string().optional(),
  android: z.string().optional(),
  geo: z.record(z.string(), z.string()).optional(),
  hasPassword: z.literal(true).optional().describe('Present (true) when a password is set.'),
  maxVisits: z.number().int().min(1).optional(),
};

/**
 * A link's rules as the links service hands them to the redirect (the cache entry's LinkRules):
 * the password as its hash only.
 */
export const resolvedRulesSchema = z.object({
  ios: z.string().optional(),
  android: z.string().optional(),
  geo: z.record(z.string(), z.string()).optional(),
  passwordHash: z.string().optional(),
  maxVisits: z.number().int().min(1).optional(),
});
export type ResolvedRules = z.infer<typeof resolvedRulesSchema>;
