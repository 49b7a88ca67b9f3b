import { z } from 'zod';
import { shortLinkSchema } from './links';

/**
 * The public API of SPEC.md section 7, as the browser sees it. Every call carries the
 * X-Requested-With header; every error body has `message`.
 */
export const REQUESTED_WITH_HEADER = 'X-Requested-With';
export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';
/** How many links a listing holds in all, on each of its pages (/api/user, /api/links). */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';
export const LOGGED_IN_COOKIE = 'loggedIn';
/** Where the gateway describes the public API: Swagger UI at `${API_DOCS_PATH}/`. */
export const API_DOCS_PATH = '/api/docs';

export const MESSAGES = {
  unauthorized: 'Unauthorized access',
  loginForExpiry: 'Login required to set expiry beyond 7 days.',
  serverError: 'Server error',
  invalidUrl: '* Please enter a valid URL',
  unexpected: 'Unexpected error occurred',
  urlNotFound: 'Url not found',
  noVisitors: 'No visitors',
  missingRequestedWith: 'Missing X-Requested-With header',
  /** A GET or HEAD of /r/{code} that carries a body (refused: see docs/operations/edge.md). */
  noBodyOnShortLink: 'A short link takes no request body',
} as const;

export const userDataSchema = z.object({
  fullName: z.string(),
  profilePicture: z.string(),
  urls: z.array(shortLinkSchema),
});
export type UserData = z.infer<typeof userDataSchema>;

/** GET /api/links answers a page of links, newest first (X-Next-Cursor when more follow). */
export const linksResponseSchema = z.array(shortLinkSchema);
export type LinksResponse = z.infer<typeof linksResponseSchema>;

export const shortenResponseSchema = z.object({
  url: z.string(),
  loggedIn: z.boolean(),
});
export type ShortenResponse = z.infer<typeof shortenResponseSchema>;

export const deleteResponseSchema = z.object({
  loggedIn: z.literal(true),
});
export type DeleteResponse = z.infer<typeof deleteResponseSchema>;

export const visitSchema = z.object({
  _id: z.string(),
  /** ISO 8601 */
  createdAt: z.string(),
  userAgent: z.object({
    platform: z.string(),
    browser: z.string(),
  }),
  ipAddress: z.string(),
  /**
   * Whether the visitor was taken for a bot (isbot, as the stats and the CSV count it):
   * beside SPEC's fields, so the visitor log can mark bots. This server always sends it.
   */
  bot: z.boolean().optional(),
  /**
   * Where the visitor came from: the host of the page that sent them (as the stats' referrers
   * count it), '(unknown)' when the request's Referer was no URL with a host, null when it
   * named none. Beside SPEC's fields; this server always sends it.
   */
  referrer: z
    .string()
    .nullable()
    .optional()
    .describe(
      "The host of the page the visitor came from (as the stats' referrers count it), " +
        "'(unknown)' when the request's Referer was no URL with a host, null when it named none.",
    ),
  /** The short link's campaign parameters as the visit's request named them; null for none. */
  utmSource: z
    .string()
    .nullable()
    .optional()
    .describe("The short link's utm_source in the visit's request, null when it named none."),
  utmMedium: z
    .string()
    .nullable()
    .optional()
    .describe("The short link's utm_medium in the visit's request, null when it named none."),
  utmCampaign: z
    .string()
    .nullable()
    .optional()
    .describe("The short link's utm_campaign in the visit's request, null when it named none."),
});
export type Visit = z.infer<typeof visitSchema>;

/** GET /api/visitors/{urlID} answers one page of visits, newest first. */
export const visitorsResponseSchema = z.array(visitSchema);
export type VisitorsResponse = z.infer<typeof visitorsResponseSchema>;

export const errorResponseSchema = z.object({
  message: z.string(),
  callBack: z.string().optional(),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
