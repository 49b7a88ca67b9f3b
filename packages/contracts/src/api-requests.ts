import { z } from 'zod';
import {
  ALIAS_MAX_LENGTH,
  ALIAS_MESSAGES,
  ALIAS_MIN_LENGTH,
  EDIT_LINK_MESSAGES,
  EXPIRY_DAYS,
  MAX_URL_LENGTH,
  SHORT_CODE_PATTERN,
  TARGET_URL_MESSAGES,
} from './links';
import { LINK_RULE_FIELDS, linkRulesAnswerShape, linkRulesInputShape } from './link-rules';

/**
 * What the public API accepts (SPEC.md section 7), as the gateway validates it and its
 * OpenAPI description shows it. The messages are the ones the links service gives for the
 * same mistakes, so a user reads the same words whichever side refuses.
 */
export const shortenQuerySchema = z.object({
  url: z
    .string({
      error: (issue) =>
        issue.input === undefined ? TARGET_URL_MESSAGES.required : TARGET_URL_MESSAGES.oneOnly,
    })
    .min(1, { error: TARGET_URL_MESSAGES.required })
    .max(MAX_URL_LENGTH, { error: TARGET_URL_MESSAGES.tooLong })
    .describe('The absolute http or https URL to shorten.'),
  days: z
    .string()
    .max(8)
    .optional()
    // Anything that is not one of the offered choices means the default, never an error.
    .catch(undefined)
    .describe('Days until the link expires: 7, 15, 30 or 60. Anything else means 7.'),
  alias: z
    .string({ error: ALIAS_MESSAGES.oneOnly })
    .optional()
    .describe(
      `Signed in only: the back-half to use instead of a generated code, ${ALIAS_MIN_LENGTH} ` +
        `to ${ALIAS_MAX_LENGTH} characters of A-Z, a-z, 0-9, - and _, not one of the app's own ` +
        'paths, and not taken by a link (letter case aside). Empty means none.',
    ),
});
export type ShortenQuery = z.infer<typeof shortenQuerySchema>;

export const urlIdSchema = z
  .string()
  .regex(SHORT_CODE_PATTERN)
  .describe(
    `The short code: 7 characters of 0-9, A-Z, a-z, or an alias (${ALIAS_MIN_LENGTH} to ` +
      `${ALIAS_MAX_LENGTH} characters of 0-9, A-Z, a-z, - and _).`,
  );

/** What a cursor that is not one a page gave is answered (400), on every paged call. */
export const CURSOR_MESSAGE = 'The cursor is not valid.';

/** Cursors are opaque to the gateway: printable ASCII without spaces, bounded in length. */
export const VISITS_CURSOR_PATTERN = /^[\x21-\x7e]{1,200}$/;

/**
 * Text a user types that reaches SQL (a search, a key's name) holds no control character:
 * PostgreSQL refuses NUL outright, and none of the others belongs in one line of text.
 */
export function hasNoControlCharacters(text: string): boolean {
  return !/\p{Cc}/u.test(text);
}

/** The longest search GET /api/links takes: longer than any code, shorter than most URLs. */
export const LINKS_SEARCH_MAX = 200;

/**
 * The orders GET /api/links lists in: newest first (the default), the soonest to expire
 * first, or the most visited first. Each pages by its own cursor.
 */
export const LINKS_SORTS = ['newest', 'expiring', 'visits'] as const;
export type LinksSort = (typeof LINKS_SORTS)[number];

/** What GET /api/links refuses, word for word (400). */
export const LINKS_QUERY_MESSAGES = {
  cursor: CURSOR_MESSAGE,
  oneCursor: 'Give one cursor only.',
  search: `The search must be one text of at most ${LINKS_SEARCH_MAX} characters.`,
  searchControl: 'The search must not contain control characters.',
  sort: `The sort must be one of ${LINKS_SORTS.join(', ')}.`,
} as const;

const linksSearchText = z
  .string({ error: LINKS_QUERY_MESSAGES.search })
  .max(LINKS_SEARCH_MAX, { error: LINKS_QUERY_MESSAGES.search })
  .refine(hasNoControlCharacters, { error: LINKS_QUERY_MESSAGES.searchControl })
  .optional()
  .describe(
    'Only links whose destination or code (an alias is a code) contains this text, ' +
      'ignoring letter case; no control characters.',
  );

/** The links service's list of codes reads the same search as GET /api/links. */
export const linksSearchSchema = z.object({ q: linksSearchText });

/**
 * GET /api/links (and the links service's list, which reads the same query): where the page
 * starts and what the links must contain. An empty search is no search.
 */
export const linksQuerySchema = z.object({
  cursor: z
    .string({ error: LINKS_QUERY_MESSAGES.oneCursor })
    .regex(VISITS_CURSOR_PATTERN, { error: LINKS_QUERY_MESSAGES.cursor })
    .optional()
    .describe(
      'Where the page starts: the X-Next-Cursor header of the previous page (of /api/user ' +
        'for the page after its links, or of /api/links with the same q).',
    ),
  q: linksSearchText,
  sort: z
    .enum(LINKS_SORTS, { error: LINKS_QUERY_MESSAGES.sort })
    .optional()
    .describe(
      'newest (the default): newest first; expiring: the soonest to expire first; visits: ' +
        'the most visited first (by visits counted when the page is asked for). Ties by code. ' +
        'A cursor continues the order that gave it.',
    ),
});
export type LinksQuery = z.infer<typeof linksQuerySchema>;
/** The most links one bulk call (POST /api/links) creates. */
export const BULK_LINKS_MAX = 100;
/** The largest bulk body read, in bytes: 100 links of the longest URL fit in it. */
export const BULK_BODY_LIMIT = 256 * 1024;

export const BULK_MESSAGES = {
  notArray: `The body must be a JSON array of 1 to ${BULK_LINKS_MAX} links, each {url, days, alias}.`,
  tooMany: `At most ${BULK_LINKS_MAX} links at once.`,
  notObject: 'Each link must be an object {url, days, alias}.',
} as const;

/** A field read as given (the links service checks it), described as PATCH describes it. */
const asGiven = (schema: z.ZodType) =>
  z
    .unknown()
    .optional()
    .describe(schema.description ?? '');

/**
 * One link of a bulk call, as shorten's query reads it (days may be a number here): the
 * gateway checks it with shortenQuerySchema, so the rules are shorten's exactly.
 */
export const bulkLinkSchema = z
  .object(
    {
      url: z.unknown().optional().describe('The absolute http or https URL to shorten.'),
      days: z.unknown().optional().describe('7, 15, 30 or 60; anything else means 7.'),
      alias: z
        .unknown()
        .optional()
        .describe("The back-half to use, as shorten's alias (on a domain: its back-half there)."),
      // Read as PATCH reads them; the links service checks each, naming the field (400).
      domain: asGiven(linkRulesInputShape.domain),
      ios: asGiven(linkRulesInputShape.ios),
      android: asGiven(linkRulesInputShape.android),
      geo: asGiven(linkRulesInputShape.geo),
      password: asGiven(linkRulesInputShape.password),
      maxVisits: asGiven(linkRulesInputShape.maxVisits),
    },
    { error: BULK_MESSAGES.notObject },
  )
  .describe('One link to create: the parameters of shorten, as JSON.');

export const bulkLinksRequestSchema = z
  .array(bulkLinkSchema, { error: BULK_MESSAGES.notArray })
  .min(1, { error: BULK_MESSAGES.notArray })
  .max(BULK_LINKS_MAX, { error: BULK_MESSAGES.tooMany })
  .describe(`1 to ${BULK_LINKS_MAX} links, each {url, days, alias}`);

/** Each link's answer, in the order given: shorten's status and its answer or its message. */
export const bulkLinkResultSchema = z.object({
  status: z
    .number()
    .int()
    .describe('The status shorten would answer for this link: 201, 400, 403, 409 or 429'),
  url: z.string().optional().describe('201: the short code (or the alias)'),
  message: z.string().optional().describe('Otherwise: why this link was not created'),
  domain: linkRulesAnswerShape.domain,
  shortUrl: linkRulesAnswerShape.shortUrl,
});
export type BulkLinkResult = z.infer<typeof bulkLinkResultSchema>;

export const bulkLinksResponseSchema = z.object({
  results: z.array(bulkLinkResultSchema),
});
export type BulkLinksResponse = z.infer<typeof bulkLinksResponseSchema>;

/** What PATCH /api/links/{urlID} changes: one at least. */
const EDITABLE_FIELDS = ['url', 'days', 'domain', ...LINK_RULE_FIELDS] as const;

/**
 * PATCH /api/links/{urlID}: a new destination, a new expiry counted from now, or both. Stricter
 * than shorten's query (where anything not offered means 7 days, SPEC section 5): an edit that
 * quietly shortened a link's life on a typo would lose what its owner meant to keep.
 */
export const editLinkBodySchema = z
  .strictObject(
    {
      url: z
        .string({ error: TARGET_URL_MESSAGES.required })
        .min(1, { error: TARGET_URL_MESSAGES.required })
        .max(MAX_URL_LENGTH, { error: TARGET_URL_MESSAGES.tooLong })
        .optional()
        .describe('The new destination: an absolute http or https URL, as for shorten.'),
      days: z
        .number({ error: EDIT_LINK_MESSAGES.days })
        .int({ error: EDIT_LINK_MESSAGES.days })
        .refine((days) => (EXPIRY_DAYS as readonly number[]).includes(days), {
          error: EDIT_LINK_MESSAGES.days,
        })
        // The choices in the description too (a refinement is not in the JSON Schema).
        .meta({ enum: [...EXPIRY_DAYS] })
        .optional()
        .describe('The new expiry, in days from now: 7, 15, 30 or 60.'),
      ...linkRulesInputShape,
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? EDIT_LINK_MESSAGES.unknownField
          : EDIT_LINK_MESSAGES.notAnObject,
    },
  )
  .refine((body) => EDITABLE_FIELDS.some((field) => body[field] !== undefined), {
    error: EDIT_LINK_MESSAGES.nothingToChange,
  })
  // The refinement above, as JSON Schema says it.
  .meta({ minProperties: 1 });
export type EditLinkBody = z.infer<typeof editLinkBodySchema>;
