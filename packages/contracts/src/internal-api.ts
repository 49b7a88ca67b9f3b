import { z } from 'zod';
import {
  codesRequestSchema,
  createLinkRequestSchema,
  internalLinkSchema,
  linkCodesSchema,
  linkListSchema,
  linksFoundSchema,
  resolvedLinkSchema,
  resolveQuerySchema,
  updateLinkRequestSchema,
  visitCountsSchema,
  visitHandOffAnswerSchema,
  visitHandOffSchema,
  visitsPageSchema,
  VISITS_PAGE_MAX,
} from './internal';
import { CURSOR_MESSAGE, linksQuerySchema, linksSearchSchema } from './api-requests';
import { currentSessionSchema, sessionLookupSchema } from './sessions';
import {
  apiKeyCallerSchema,
  apiKeyLookupSchema,
  createApiKeyRequestSchema,
  createdApiKeySchema,
  internalApiKeyListSchema,
} from './api-keys';
import { linkStatsSchema, statsRangeSchema } from './stats';
import {
  addDomainRequestSchema,
  addedDomainSchema,
  domainListSchema,
  domainSchema,
} from './domains';
import { statsFiltersSchema } from './stats-queries';
import { endpoint } from './internal-endpoint';
import { accountStatsRequestSchema, accountStatsSchema, linkOwnersSchema } from './account-stats';

export {
  internalPath,
  type InternalAnswer,
  type InternalAnswers,
  type InternalCallInput,
  type InternalEndpoint,
  type InternalMethod,
  type InternalService,
  type RouteParams,
} from './internal-endpoint';

/** A refusal: every 4xx an internal API answers carries a message. */
export const internalErrorSchema = z.object({ message: z.string() });
export type InternalError = z.infer<typeof internalErrorSchema>;

/** A 204: no body at all. */
export const noContentSchema = z.undefined();

const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${VISITS_PAGE_MAX}`;
const CREATED_AT_MESSAGE = 'createdAt must be a time in milliseconds';

/**
 * GET /internal/visits/:code: the page size (VISITS_PAGE_DEFAULT when none; more than
 * VISITS_PAGE_MAX reads VISITS_PAGE_MAX), where it starts, and the filters.
 */
export const visitsPageQuerySchema = z.object({
  ...statsFiltersSchema.shape,
  limit: z
    .number({ error: LIMIT_MESSAGE })
    .int({ error: LIMIT_MESSAGE })
    .min(1, { error: LIMIT_MESSAGE })
    .transform((limit) => Math.min(limit, VISITS_PAGE_MAX))
    .optional(),
  cursor: z.string({ error: CURSOR_MESSAGE }).optional(),
});
export type VisitsPageQuery = z.infer<typeof visitsPageQuerySchema>;

export const linkStatsQuerySchema = z.object({
  ...statsFiltersSchema.shape,
  range: statsRangeSchema.optional(),
  /** The link's creation (milliseconds): where the `all` range starts. */
  createdAt: z
    .number({ error: CREATED_AT_MESSAGE })
    .int({ error: CREATED_AT_MESSAGE })
    .nonnegative({ error: CREATED_AT_MESSAGE })
    .optional(),
});
export type LinkStatsQuery = z.infer<typeof linkStatsQuerySchema>;

export const visitsDeletedSchema = z.object({ deleted: z.number().int().nonnegative() });
export type VisitsDeleted = z.infer<typeof visitsDeletedSchema>;

/**
 * Every internal call of the system. Each service's handler is bound to its entry (@Route of
 * @shortener/chassis-nest), which routes `route` under the given method; the callers are
 * named beside each.
 */
export const internalApi = {
  // links service
  /**
   * The gateway shortens: 400 for input the page never sends, 403 for a refused URL or
   * alias, 409 for an alias taken.
   */
  createLink: endpoint({
    service: 'links',
    method: 'POST',
    route: '/internal/links',
    body: createLinkRequestSchema,
    answers: {
      201: internalLinkSchema,
      400: internalErrorSchema,
      403: internalErrorSchema,
      409: internalErrorSchema,
    },
  }),
  /**
   * The gateway lists a page of the caller's live links, newest first, those matching `q`
   * only when it is given; 400 for a cursor this service did not make.
   */
  listLinks: endpoint({
    service: 'links',
    method: 'GET',
    route: '/internal/links',
    query: linksQuerySchema,
    answers: { 200: linkListSchema, 400: internalErrorSchema },
  }),
  /**
   * The gateway lists the most visited first: every live code of the caller (matching `q`
   * when given), whose visit counts analytics knows, then the page's links by code.
   */
  listLinkCodes: endpoint({
    service: 'links',
    method: 'GET',
    route: '/internal/link-codes',
    query: linksSearchSchema,
    answers: { 200: linkCodesSchema },
  }),
  findLinks: endpoint({
    service: 'links',
    method: 'POST',
    route: '/internal/link-lookup',
    body: codesRequestSchema,
    answers: { 200: linksFoundSchema },
  }),
  /** The gateway checks that the caller owns a link; another's answers like an unknown one. */
  getLink: endpoint({
    service: 'links',
    method: 'GET',
    route: '/internal/links/:code',
    answers: { 200: internalLinkSchema, 404: internalErrorSchema },
  }),
  /** The gateway deletes one of the caller's links. */
  deleteLink: endpoint({
    service: 'links',
    method: 'DELETE',
    route: '/internal/links/:code',
    answers: { 204: noContentSchema, 404: internalErrorSchema },
  }),
  /**
   * The gateway changes one of the caller's links (destination, expiry from now, or both):
   * 400 and 403 as for createLink; another's or a deleted one answers like an unknown one.
   */
  updateLink: endpoint({
    service: 'links',
    method: 'PATCH',
    route: '/internal/links/:code',
    body: updateLinkRequestSchema,
    answers: {
      200: internalLinkSchema,
      400: internalErrorSchema,
      403: internalErrorSchema,
      404: internalErrorSchema,
      409: internalErrorSchema,
    },
  }),
  /**
   * The gateway undoes the delete of one of the caller's links within the undo window (a live
   * one answers as it is); after the window, or another's, 404.
   */
  restoreLink: endpoint({
    service: 'links',
    method: 'POST',
    route: '/internal/links/:code/restore',
    answers: { 200: internalLinkSchema, 404: internalErrorSchema },
  }),
  /** The gateway lists the caller's domains, newest first. */
  listDomains: endpoint({
    service: 'links',
    method: 'GET',
    route: '/internal/domains',
    answers: { 200: domainListSchema },
  }),
  /**
   * The gateway adds a domain for the caller (`created` false for one already theirs): 400
   * for a host refused, 409 for one another user holds.
   */
  addDomain: endpoint({
    service: 'links',
    method: 'POST',
    route: '/internal/domains',
    body: addDomainRequestSchema,
    answers: { 200: addedDomainSchema, 400: internalErrorSchema, 409: internalErrorSchema },
  }),
  /** The gateway has one of the caller's domains verified: 422 saying what the DNS lacks. */
  verifyDomain: endpoint({
    service: 'links',
    method: 'POST',
    route: '/internal/domains/:host/verify',
    answers: { 200: domainSchema, 404: internalErrorSchema, 422: internalErrorSchema },
  }),
  /** The gateway removes one of the caller's domains, restorable within the undo window. */
  deleteDomain: endpoint({
    service: 'links',
    method: 'DELETE',
    route: '/internal/domains/:host',
    answers: { 204: noContentSchema, 404: internalErrorSchema },
  }),
  /** The gateway undoes a domain's delete within the window (a live one answers as it is). */
  restoreDomain: endpoint({
    service: 'links',
    method: 'POST',
    route: '/internal/domains/:host/restore',
    answers: { 200: domainSchema, 404: internalErrorSchema },
  }),
  /** The redirect service finds any live link. */
  resolveLink: endpoint({
    service: 'links',
    method: 'GET',
    route: '/internal/resolve/:code',
    query: resolveQuerySchema,
    answers: { 200: resolvedLinkSchema, 404: internalErrorSchema },
  }),

  // analytics service
  /**
   * The gateway reads a page of a link's visits (those the filters match), newest first; 400
   * for a bad cursor or a filter refused.
   */
  visitsPage: endpoint({
    service: 'analytics',
    method: 'GET',
    route: '/internal/visits/:code',
    query: visitsPageQuerySchema,
    answers: { 200: visitsPageSchema, 400: internalErrorSchema },
  }),
  /** The gateway counts the visits of up to 1000 links. */
  visitCounts: endpoint({
    service: 'analytics',
    method: 'POST',
    route: '/internal/visit-counts',
    body: codesRequestSchema,
    answers: { 200: visitCountsSchema },
  }),
  /**
   * The gateway reads a link's statistics over a range, of the visits the filters match;
   * 400 for a range not listed or a filter refused.
   */
  linkStats: endpoint({
    service: 'analytics',
    method: 'GET',
    route: '/internal/stats/:code',
    query: linkStatsQuerySchema,
    answers: { 200: linkStatsSchema, 400: internalErrorSchema },
  }),
  /**
   * The links service tells who owns links (owners never change), each once it is made and
   * again until told (an outbox column): analytics counts their visits in the owner's
   * account from then, those stored before included. 400 for a body the schema refuses.
   */
  registerLinkOwners: endpoint({
    service: 'analytics',
    method: 'POST',
    route: '/internal/link-owners',
    body: linkOwnersSchema,
    answers: { 204: noContentSchema, 400: internalErrorSchema },
  }),
  /**
   * The gateway reads the statistics of all the caller's links (the caller's identity is the
   * account), of the visits the filters match; 400 for a filter refused.
   */
  accountStats: endpoint({
    service: 'analytics',
    method: 'GET',
    route: '/internal/account-stats',
    query: accountStatsRequestSchema,
    answers: { 200: accountStatsSchema, 400: internalErrorSchema },
  }),
  /**
   * The gateway streams every visit of the caller's links in the range (the filters match) as
   * CSV, oldest first.
   */
  accountVisitsCsv: endpoint({
    service: 'analytics',
    method: 'GET',
    route: '/internal/account-stats/visits.csv',
    query: accountStatsRequestSchema,
    streams: 'text/csv',
    answers: { 200: z.string(), 400: internalErrorSchema },
  }),
  /** The gateway streams every visit of a link (the filters match) as CSV, oldest first. */
  visitsCsv: endpoint({
    service: 'analytics',
    method: 'GET',
    route: '/internal/visits/:code/csv',
    query: statsFiltersSchema,
    streams: 'text/csv',
    answers: { 200: z.string(), 400: internalErrorSchema },
  }),
  /** The links service has the visits of removed links deleted. */
  deleteVisits: endpoint({
    service: 'analytics',
    method: 'POST',
    route: '/internal/visits/delete',
    body: codesRequestSchema,
    answers: { 200: visitsDeletedSchema },
  }),
  /**
   * A redirect instance stopping while Kafka is away hands over the visits Kafka did not
   * take: stored as the consumer stores them, once each by event id. 400 for a body the
   * schema refuses (no visit of it stored), 413 for one over VISIT_HAND_OFF_MAX_BYTES.
   */
  handOffVisits: endpoint({
    service: 'analytics',
    method: 'POST',
    route: '/internal/visits/hand-off',
    body: visitHandOffSchema,
    answers: { 200: visitHandOffAnswerSchema, 400: internalErrorSchema, 413: internalErrorSchema },
  }),

  // auth service
  /** The gateway resolves a session cookie; forged, unknown or expired: 404. */
  lookUpSession: endpoint({
    service: 'auth',
    method: 'POST',
    route: '/internal/sessions/lookup',
    body: sessionLookupSchema,
    answers: { 200: currentSessionSchema, 404: internalErrorSchema },
  }),
  /** The gateway resolves an API key: who it speaks for and its scopes; unknown or revoked: 404. */
  lookUpApiKey: endpoint({
    service: 'auth',
    method: 'POST',
    route: '/internal/api-keys/lookup',
    body: apiKeyLookupSchema,
    answers: { 200: apiKeyCallerSchema, 404: internalErrorSchema },
  }),
  /** The gateway lists the caller's live keys. */
  listApiKeys: endpoint({
    service: 'auth',
    method: 'GET',
    route: '/internal/api-keys',
    answers: { 200: internalApiKeyListSchema },
  }),
  /** The gateway makes a key for the caller; 409 past API_KEYS_PER_USER. */
  createApiKey: endpoint({
    service: 'auth',
    method: 'POST',
    route: '/internal/api-keys',
    body: createApiKeyRequestSchema,
    answers: { 201: createdApiKeySchema, 400: internalErrorSchema, 409: internalErrorSchema },
  }),
  /** The gateway revokes one of the caller's keys; another's answers like an unknown one. */
  revokeApiKey: endpoint({
    service: 'auth',
    method: 'DELETE',
    route: '/internal/api-keys/:id',
    answers: { 204: noContentSchema, 404: internalErrorSchema },
  }),
} as const;

export type InternalApi = typeof internalApi;
