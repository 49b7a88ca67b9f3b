import { z } from 'zod';
import { visitSchema } from './api';
import { ALIAS_MAX_LENGTH } from './links';
import { linkRulesAnswerShape, resolvedRulesSchema } from './link-rules';
import { visitEventSchema } from './visits';

/**
 * The bodies of the internal HTTP APIs the gateway (and the redirect and links services)
 * call; which endpoint takes and answers which is `internalApi` (internal-api.ts). Never
 * exposed at the edge; every call carries a signed internal token (see @shortener/chassis
 * internal-auth).
 */
export const INTERNAL_TOKEN_HEADER = 'x-internal-token';

/** A link as the links service returns it to the gateway. */
export const internalLinkSchema = z.object({
  urlID: z.string(),
  originalUrl: z.string(),
  createdAt: z.string(),
  expiresAt: z.number(),
  /**
   * A branded link's domain and slug (its back-half there), and the rules that are set; all
   * absent for a plain main-origin link (and from the previous release's answers).
   */
  domain: linkRulesAnswerShape.domain,
  slug: z.string().optional(),
  ios: linkRulesAnswerShape.ios,
  android: linkRulesAnswerShape.android,
  geo: linkRulesAnswerShape.geo,
  hasPassword: linkRulesAnswerShape.hasPassword,
  maxVisits: linkRulesAnswerShape.maxVisits,
});
export type InternalLink = z.infer<typeof internalLinkSchema>;

/**
 * A link's domain and rules as the links service reads them (it checks each, naming the
 * field): a value sets, null removes, absent keeps.
 */
function placementAndRules() {
  return {
    domain: z.unknown().optional(),
    ios: z.unknown().optional(),
    android: z.unknown().optional(),
    geo: z.unknown().optional(),
    password: z.unknown().optional(),
    maxVisits: z.unknown().optional(),
  };
}

// Both optional: the links service answers a missing URL itself, and missing days mean 7.
export const createLinkRequestSchema = z.object({
  url: z.unknown().optional(),
  days: z.unknown().optional(),
  /** A chosen back-half (signed in only); none, null or '' for a generated code. */
  alias: z.unknown().optional(),
  ...placementAndRules(),
});
export type CreateLinkRequest = z.infer<typeof createLinkRequestSchema>;

/** A link's new destination, expiry or both; the links service applies shorten's rules. */
export const updateLinkRequestSchema = z.object({
  url: z.unknown().optional(),
  days: z.number().int().optional(),
  ...placementAndRules(),
});
export type UpdateLinkRequest = z.infer<typeof updateLinkRequestSchema>;

/** How many links a page of a user's links holds: /api/user's and each of /api/links'. */
export const LINKS_PAGE_SIZE = 100;

/**
 * A page of a user's live links, newest first; `nextCursor` is null on the last one. The
 * previous release's links service answers without it (every link, unpaged): read as the last
 * page, so its pods serve beside this release's during a rolling update.
 */
export const linkListSchema = z.object({
  links: z.array(internalLinkSchema),
  nextCursor: z.string().nullable().default(null),
  /** How many links the listing holds in all (absent from the previous release's answer). */
  total: z.number().int().nonnegative().optional(),
});
export type LinkList = z.infer<typeof linkListSchema>;

export const resolvedLinkSchema = z.object({
  url: z.string(),
  expiresAt: z.number(),
  /** Raised by every change of the link; the previous release did not send it. */
  version: z.number().int().nonnegative().optional(),
  /** The link's code (its urlID) when it was asked for by a domain's slug. */
  urlId: z.string().optional(),
  /** The rules the redirect applies; absent for a plain link. */
  rules: resolvedRulesSchema.optional(),
});
export type ResolvedLink = z.infer<typeof resolvedLinkSchema>;

/** The internal resolve's query: with `host`, the code is a slug on that branded domain. */
export const resolveQuerySchema = z.object({ host: z.string().max(253).optional() });

export const VISITS_PAGE_DEFAULT = 50;
export const VISITS_PAGE_MAX = 500;

export const visitsPageSchema = z.object({
  visits: z.array(visitSchema),
  nextCursor: z.string().nullable(),
});
export type VisitsPage = z.infer<typeof visitsPageSchema>;

export const codesRequestSchema = z.object({
  codes: z.array(z.string().max(ALIAS_MAX_LENGTH)).max(1000),
});
export type CodesRequest = z.infer<typeof codesRequestSchema>;

/** Every live code of a user (those matching a search when one is given), in no order. */
export const linkCodesSchema = z.object({ codes: z.array(z.string()) });
export type LinkCodes = z.infer<typeof linkCodesSchema>;

/** Some of a user's live links, asked for by code: those that are not are left out. */
export const linksFoundSchema = z.object({ links: z.array(internalLinkSchema) });
export type LinksFound = z.infer<typeof linksFoundSchema>;

const isCount = (value: unknown): boolean =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

export const visitCountsSchema = z.object({
  // Visits by code, every own key kept: z.record drops a `__proto__` key, and a code may be
  // `__proto__` (an alias). Read it with visitCountOf, never by indexing.
  counts: z.custom<Readonly<Record<string, number>>>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.values(value).every(isCount),
    { error: 'counts must map codes to visit counts' },
  ),
});
export type VisitCounts = z.infer<typeof visitCountsSchema>;

/** A code's count in VisitCounts: its own entry only, never a property every object has. */
export function visitCountOf(counts: VisitCounts['counts'], code: string): number {
  return Object.hasOwn(counts, code) ? (counts[code] ?? 0) : 0;
}

/**
 * A hand-off call carries at most this many visits, in a body of at most this many bytes
 * (analytics' request body limit): a redirect instance stopping while Kafka is away hands
 * what it holds to analytics in batches within both.
 */
export const VISIT_HAND_OFF_MAX = 1000;
export const VISIT_HAND_OFF_MAX_BYTES = 1024 * 1024;

/** Visit events as the `visits` topic carries them, each checked by the consumer's schema. */
export const visitHandOffSchema = z.object({
  visits: z.array(visitEventSchema).min(1).max(VISIT_HAND_OFF_MAX),
});
export type VisitHandOff = z.infer<typeof visitHandOffSchema>;

export const visitHandOffAnswerSchema = z.object({
  /** Stored, now or before (an event is stored once by its id). */
  taken: z.number().int().nonnegative(),
  /** Refused by PostgreSQL for their data: counted and logged by analytics, as dead letters. */
  refused: z.number().int().nonnegative(),
});
export type VisitHandOffAnswer = z.infer<typeof visitHandOffAnswerSchema>;
