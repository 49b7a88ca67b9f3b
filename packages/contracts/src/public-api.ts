import { z } from 'zod';
import {
  deleteResponseSchema,
  errorResponseSchema,
  linksResponseSchema,
  MESSAGES,
  NEXT_CURSOR_HEADER,
  TOTAL_COUNT_HEADER,
  REQUESTED_WITH_HEADER,
  shortenResponseSchema,
  userDataSchema,
  visitorsResponseSchema,
} from './api';
import {
  BULK_BODY_LIMIT,
  BULK_LINKS_MAX,
  BULK_MESSAGES,
  bulkLinksRequestSchema,
  bulkLinksResponseSchema,
  CURSOR_MESSAGE,
  editLinkBodySchema,
  LINKS_QUERY_MESSAGES,
  linksQuerySchema,
  shortenQuerySchema,
  urlIdSchema,
  visitorsQuerySchema,
} from './api-requests';
import { LINKS_PAGE_SIZE } from './internal';
import {
  ALIAS_MESSAGES,
  DELETE_UNDO_OFFER_MS,
  DELETE_UNDO_WINDOW_DEFAULT_MS,
  EDIT_LINK_MESSAGES,
  MAX_URL_LENGTH,
  shortLinkSchema,
  TARGET_URL_MESSAGES,
} from './links';
import {
  API_KEY_ID_PATTERN,
  API_KEY_MESSAGES,
  apiKeysSchema,
  createApiKeyRequestSchema,
  createdApiKeySchema,
  type ApiKeyScope,
} from './api-keys';
import {
  LIVE_END_REASONS,
  LIVE_EVENTS,
  linkStatsSchema,
  liveVisitSchema,
  statsQuerySchema,
  STATS_RANGES,
  VISITS_CSV_COLUMNS,
} from './stats';

/**
 * Each call of the public API (SPEC.md section 7) described once: its route, who may make
 * it, its parameters and every answer with its schema. The gateway's OpenAPI description is
 * generated from this list, and each of the gateway's handlers is bound to its entry
 * (@Route of @shortener/chassis-nest), which gives its method, path and inputs.
 */

/** The value of X-Requested-With every call carries (the CSRF defence). */
export const REQUESTED_WITH_VALUE = 'XMLHttpRequest';

/** A schema the description names (under components/schemas). */
export interface NamedSchema {
  readonly name: string;
  readonly schema: z.ZodType;
}

export interface PublicAnswer {
  readonly description: string;
  /** The JSON body; none for an answer without one. */
  readonly body?: NamedSchema;
  /** A body that is not JSON: its media type (text/csv, text/event-stream). */
  readonly streams?: string;
  /** For a text/event-stream body: each event's name and the JSON its `data:` line carries. */
  readonly events?: Readonly<Record<string, NamedSchema | z.ZodType>>;
  readonly headers?: Readonly<Record<string, { description: string; schema: z.ZodType }>>;
}

export interface PublicRoute {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PATCH';
  /** The path as OpenAPI writes it: `{name}` for a path parameter. */
  readonly path: string;
  readonly summary: string;
  /** `signed-in`: a session is required (401 without); `anyone`: signed in or not. */
  readonly access: 'signed-in' | 'anyone';
  /**
   * The API key scope that lets a key (Authorization: Bearer) make this call in place of a
   * session; a call without one takes sessions only.
   */
  readonly apiKeyScope?: ApiKeyScope;
  /**
   * How a cross-site request is refused: the X-Requested-With header (the default), or, for
   * a call a browser makes without script headers (EventSource), Sec-Fetch-Site and Origin.
   */
  readonly csrf?: 'requested-with' | 'same-origin';
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** The JSON body the call reads; none for a call that takes no body. */
  readonly body?: z.ZodType;
  /** The largest body read, in bytes, when larger than the edge's 16 KB. */
  readonly bodyLimit?: number;
  /** By status; the first 2xx is the success answer. */
  readonly answers: Readonly<Record<number, PublicAnswer>>;
}

export const PUBLIC_SCHEMAS = {
  userData: { name: 'UserData', schema: userDataSchema },
  links: { name: 'Links', schema: linksResponseSchema },
  shortenResponse: { name: 'ShortenResponse', schema: shortenResponseSchema },
  deleteResponse: { name: 'DeleteResponse', schema: deleteResponseSchema },
  visitors: { name: 'Visitors', schema: visitorsResponseSchema },
  linkStats: { name: 'LinkStats', schema: linkStatsSchema },
  liveVisit: { name: 'LiveVisit', schema: liveVisitSchema },
  bulkLinks: { name: 'BulkLinksResult', schema: bulkLinksResponseSchema },
  shortLink: { name: 'ShortLink', schema: shortLinkSchema },
  error: { name: 'Error', schema: errorResponseSchema },
  apiKeys: { name: 'ApiKeys', schema: apiKeysSchema },
  createdApiKey: { name: 'CreatedApiKey', schema: createdApiKeySchema },
} as const satisfies Record<string, NamedSchema>;

const error = (description: string, headers?: PublicAnswer['headers']): PublicAnswer => ({
  description,
  body: PUBLIC_SCHEMAS.error,
  ...(headers ? { headers } : {}),
});

const retryAfter = (description: string) => ({
  'Retry-After': { description, schema: z.number().int() },
});

/** What the gateway's edge may answer to any call, before or around the route itself. */
const EDGE_ANSWERS = {
  403: error(`${REQUESTED_WITH_HEADER} missing or wrong`),
  429: error('Too many requests', retryAfter('Seconds to wait')),
  502: error(
    `'${MESSAGES.serverError}': a service behind the gateway answered outside its contract`,
  ),
  503: error('A service behind the gateway is unavailable'),
  // These calls take no body; one is still read (after the rate limit) and refused if bad.
  413: error('A request body over 16 KB'),
  415: error('A request body in a Content-Encoding other than gzip, deflate or br'),
} as const;

const UNDECODABLE = 'request body that cannot be decoded (corrupt gzip, say)';

const unauthorized = error(
  `Not signed in: {message: '${MESSAGES.unauthorized}', callBack: '/login?from=...'}`,
);

/**
 * A call only a session may make refuses any API key with 403, before looking it up: a
 * revoked or unknown key is refused the same, never 401.
 */
const sessionOnly = (other: string): PublicAnswer =>
  error(`${other}, or '${API_KEY_MESSAGES.sessionOnly}' (any API key, valid or not)`);

const urlIdParams = z.object({ urlID: urlIdSchema });

/** The headers of a page of links (/api/user, /api/links): the next page, the total. */
const nextLinksHeader = {
  [NEXT_CURSOR_HEADER]: {
    description:
      'Present when more links follow: pass it as ?cursor= to GET /api/links for the next ' +
      `${LINKS_PAGE_SIZE}; absent on the last page`,
    schema: z.string(),
  },
  [TOTAL_COUNT_HEADER]: {
    description:
      'How many live links the listing holds in all (with q, how many match), on every page',
    schema: z.string().regex(/^\d+$/),
  },
};

export const publicApi = {
  getUser: {
    operationId: 'getUser',
    method: 'GET',
    path: '/api/user',
    summary:
      "The signed-in user's name, picture and newest live links (up to " +
      `${LINKS_PAGE_SIZE}) with visit counts; GET /api/links pages through the rest`,
    access: 'signed-in',
    apiKeyScope: 'links:read',
    answers: {
      200: { description: 'User data', body: PUBLIC_SCHEMAS.userData, headers: nextLinksHeader },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      ...EDGE_ANSWERS,
    },
  },
  listLinks: {
    operationId: 'listLinks',
    method: 'GET',
    path: '/api/links',
    summary:
      `A page of your live links (up to ${LINKS_PAGE_SIZE}) with visit counts, newest first, ` +
      'or the soonest to expire first (sort=expiring), or the most visited first ' +
      '(sort=visits); with q, only those whose destination or code contains it (any letter ' +
      'case). The first page newest first without q holds the same links as /api/user.',
    access: 'signed-in',
    apiKeyScope: 'links:read',
    query: linksQuerySchema,
    answers: {
      200: { description: 'Links', body: PUBLIC_SCHEMAS.links, headers: nextLinksHeader },
      400: error(
        `'${LINKS_QUERY_MESSAGES.cursor}' (not a cursor this call gave, or one of another ` +
          `sort), '${LINKS_QUERY_MESSAGES.oneCursor}', '${LINKS_QUERY_MESSAGES.search}', ` +
          `'${LINKS_QUERY_MESSAGES.searchControl}' (NUL, a line break, ...), ` +
          `'${LINKS_QUERY_MESSAGES.sort}', or a ${UNDECODABLE}`,
      ),
      401: unauthorized,
      ...EDGE_ANSWERS,
    },
  },
  shorten: {
    operationId: 'shorten',
    method: 'POST',
    path: '/api/shorten/',
    summary: 'Shortens a URL; signed in or not (anonymous links expire after 7 days)',
    access: 'anyone',
    apiKeyScope: 'links:write',
    query: shortenQuerySchema,
    answers: {
      201: { description: 'The short code', body: PUBLIC_SCHEMAS.shortenResponse },
      400: error(
        `No url, more than one, or one that is not an absolute URL (input the web page ` +
          `never sends), more than one alias ('${ALIAS_MESSAGES.oneOnly}'), or a ${UNDECODABLE}`,
      ),
      403: error(
        // The page shows a 403's message and reads anything else as 'Server error'
        // (SPEC section 8), so every refusal a user can meet says why with a 403.
        'Refused, with a message the page shows: ' +
          [
            `'${TARGET_URL_MESSAGES.scheme}'`,
            `'${TARGET_URL_MESSAGES.ownLinks}' (this service's hosts, and this machine: ` +
              'localhost names, and loopback addresses in any spelling, also inside a wildcard ' +
              'DNS name such as 127.0.0.1.nip.io; names are not resolved, so another name ' +
              'that resolves to this machine is not caught)',
            `'${TARGET_URL_MESSAGES.tooLong}'`,
            `'${TARGET_URL_MESSAGES.credentials}'`,
            `'${TARGET_URL_MESSAGES.spaces}'`,
            `'${MESSAGES.loginForExpiry}' (anonymous, days > 7; answered first when an ` +
              'anonymous call also gives an alias)',
            `'${ALIAS_MESSAGES.loginRequired}' (anonymous, with an alias)`,
            `'${ALIAS_MESSAGES.format}'`,
            `'${ALIAS_MESSAGES.reserved}' (the app's own paths)`,
            "'Too many links shortened: please wait {n} seconds...' (the shorten rate " +
              'limit, per user or per address for anonymous callers; with Retry-After)',
          ].join('; ') +
          `. Also ${REQUESTED_WITH_HEADER} missing`,
        retryAfter('Seconds to wait, when the shorten rate limit refused'),
      ),
      409: error(
        `The alias is taken: '${ALIAS_MESSAGES.taken}' (by a link, in any letter case), or ` +
          `'${ALIAS_MESSAGES.recentlyDeleted}' (a deleted link's code, kept from reuse so no ` +
          'one inherits its visits or cached redirect)',
      ),
      413: EDGE_ANSWERS[413],
      415: EDGE_ANSWERS[415],
      429: error(
        'Too many requests from this address (API_RATE_LIMIT); with an API key, see below',
        retryAfter('Seconds to wait'),
      ),
      431: error(
        `The request's head is over 16 KB (answered before any route). A URL ` +
          `of ${MAX_URL_LENGTH} characters fits, unless most of them are outside ASCII: ` +
          'percent-encoded in the query, such a URL can take up to 18 KB. Send it in the body ' +
          'of POST /api/links instead',
      ),
      502: EDGE_ANSWERS[502],
      503: EDGE_ANSWERS[503],
    },
  },
  // Issue 28, custom back-halves: shorten many links in one call.
  createLinks: {
    operationId: 'createLinks',
    method: 'POST',
    path: '/api/links',
    summary:
      `Shortens up to ${BULK_LINKS_MAX} URLs at once, each with shorten's rules, and answers ` +
      'each one: its status and short code, or its status and message. Each link counts ' +
      'against the shorten rate limit; those past it are answered 429',
    access: 'signed-in',
    apiKeyScope: 'links:write',
    body: bulkLinksRequestSchema,
    bodyLimit: BULK_BODY_LIMIT,
    answers: {
      200: {
        description:
          'Each link answered in the order given: {status: 201, url: code} when created, ' +
          '{status, message} with the status and message shorten would answer otherwise ' +
          '(400, 403, 409, or 429 past the rate limit)',
        body: PUBLIC_SCHEMAS.bulkLinks,
        headers: {
          'Retry-After': {
            description: 'Seconds to wait, when the rate limit refused some of the links',
            schema: z.number().int(),
          },
        },
      },
      400: error(
        `Nothing created: '${BULK_MESSAGES.notArray}', '${BULK_MESSAGES.tooMany}', ` +
          `'${BULK_MESSAGES.notObject}', a body that is not JSON, or a ${UNDECODABLE}`,
      ),
      401: unauthorized,
      403: EDGE_ANSWERS[403],
      413: error('A request body over 256 KB: nothing created'),
      415: EDGE_ANSWERS[415],
      429: error(
        'Nothing created: too many requests, or no link left within the shorten rate limit',
        retryAfter('Seconds to wait'),
      ),
      502: EDGE_ANSWERS[502],
      503: EDGE_ANSWERS[503],
    },
  },
  deleteLink: {
    operationId: 'deleteLink',
    method: 'POST',
    path: '/api/delete/{urlID}',
    summary:
      'Deletes one of your links: it stops redirecting at once and leaves your list; for ' +
      `${DELETE_UNDO_WINDOW_DEFAULT_MS / 1000} s (DELETE_UNDO_WINDOW_MS of the links service) ` +
      'restoreLink brings it back whole, then it is purged with its visits',
    access: 'signed-in',
    apiKeyScope: 'links:write',
    params: urlIdParams,
    answers: {
      200: { description: 'Deleted', body: PUBLIC_SCHEMAS.deleteResponse },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: error(`'${MESSAGES.urlNotFound}': unknown, expired or not yours`),
      ...EDGE_ANSWERS,
    },
  },
  editLink: {
    operationId: 'editLink',
    method: 'PATCH',
    path: '/api/links/{urlID}',
    summary:
      "Changes one of your links' destination, its expiry (days from now), or both; the code, " +
      'its visits and its stats stay. Every redirect serves the new destination within a second ' +
      'of the answer.',
    access: 'signed-in',
    apiKeyScope: 'links:write',
    params: urlIdParams,
    body: editLinkBodySchema,
    answers: {
      200: { description: 'The link as it is now', body: PUBLIC_SCHEMAS.shortLink },
      400: error(
        'Nothing changed: ' +
          [
            `'${EDIT_LINK_MESSAGES.notAnObject}' (no JSON object; JSON that does not parse: ` +
              "'Request body could not be read')",
            `'${EDIT_LINK_MESSAGES.nothingToChange}'`,
            `'${EDIT_LINK_MESSAGES.unknownField}'`,
            `'${EDIT_LINK_MESSAGES.days}'`,
            `'${TARGET_URL_MESSAGES.notAbsolute}'`,
            `'${TARGET_URL_MESSAGES.noHost}'`,
          ].join('; '),
      ),
      401: unauthorized,
      403: error(
        "Nothing changed: the URL is refused by shorten's rules: " +
          [
            `'${TARGET_URL_MESSAGES.scheme}'`,
            `'${TARGET_URL_MESSAGES.ownLinks}'`,
            `'${TARGET_URL_MESSAGES.tooLong}'`,
            `'${TARGET_URL_MESSAGES.credentials}'`,
            `'${TARGET_URL_MESSAGES.spaces}'`,
          ].join('; ') +
          `. Also ${REQUESTED_WITH_HEADER} missing`,
      ),
      404: error(`'${MESSAGES.urlNotFound}': unknown, expired, deleted or not yours`),
      413: EDGE_ANSWERS[413],
      415: EDGE_ANSWERS[415],
      429: EDGE_ANSWERS[429],
      502: EDGE_ANSWERS[502],
      503: EDGE_ANSWERS[503],
    },
  },
  restoreLink: {
    operationId: 'restoreLink',
    method: 'POST',
    path: '/api/links/{urlID}/restore',
    summary:
      'Undoes the delete of one of your links, within the undo window after deleteLink ' +
      `(${DELETE_UNDO_WINDOW_DEFAULT_MS / 1000} s by default; the web app offers Undo for ` +
      `${DELETE_UNDO_OFFER_MS / 1000} s): the same code, destination, expiry, visits and stats, ` +
      'redirecting again everywhere. A link that is not deleted answers as it is.',
    access: 'signed-in',
    apiKeyScope: 'links:write',
    params: urlIdParams,
    answers: {
      200: { description: 'The link, restored', body: PUBLIC_SCHEMAS.shortLink },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: error(
        `'${MESSAGES.urlNotFound}': unknown, not yours, deleted longer ago than the window, ` +
          'or expired (a link whose expiry passed while it was deleted stays deleted)',
      ),
      ...EDGE_ANSWERS,
    },
  },
  getVisitors: {
    operationId: 'getVisitors',
    method: 'GET',
    path: '/api/visitors/{urlID}',
    summary: "One page of a link's visits, newest first",
    access: 'signed-in',
    apiKeyScope: 'stats:read',
    params: urlIdParams,
    query: visitorsQuerySchema,
    answers: {
      200: {
        description: 'Visits',
        body: PUBLIC_SCHEMAS.visitors,
        headers: {
          [NEXT_CURSOR_HEADER]: {
            description: 'Present when there are more: pass it as ?cursor= for the next page',
            schema: z.string(),
          },
        },
      },
      400: error(`'${CURSOR_MESSAGE}', '${LINKS_QUERY_MESSAGES.oneCursor}', or a ${UNDECODABLE}`),
      401: unauthorized,
      404: error(
        `'${MESSAGES.noVisitors}' (no visits yet), or '${MESSAGES.urlNotFound}' (unknown, expired or not yours)`,
      ),
      ...EDGE_ANSWERS,
    },
  },
  getStats: {
    operationId: 'getStats',
    method: 'GET',
    path: '/api/stats/{urlID}',
    summary:
      "A link's statistics over a range: visits over time (people and bots apart), unique " +
      'visitors, and the top browsers, systems, devices, referrers and countries',
    access: 'signed-in',
    apiKeyScope: 'stats:read',
    params: urlIdParams,
    query: statsQuerySchema,
    answers: {
      200: { description: 'Statistics', body: PUBLIC_SCHEMAS.linkStats },
      400: error(`range is not one of ${STATS_RANGES.join(', ')}, or a ${UNDECODABLE}`),
      401: unauthorized,
      404: error(`'${MESSAGES.urlNotFound}' (unknown, expired or not yours)`),
      ...EDGE_ANSWERS,
    },
  },
  getLiveVisits: {
    operationId: 'getLiveVisits',
    method: 'GET',
    path: '/api/stats/{urlID}/live',
    summary:
      "A link's visits as they are stored, as Server-Sent Events (EventSource): an event " +
      `\`${LIVE_EVENTS.visit}\` per stored visit (data: LiveVisit), a comment every 15 s, and an ` +
      `event \`${LIVE_EVENTS.end}\` (data: {reason}) when the session ends ` +
      `('${LIVE_END_REASONS.sessionEnded}'), the link is deleted ` +
      `('${LIVE_END_REASONS.linkDeleted}') or the server stops ` +
      `('${LIVE_END_REASONS.serverStopping}': reconnect, as EventSource does by itself). ` +
      'A client that does not read as fast as visits come ' +
      `is not sent the visits its connection cannot take: once it has caught up, an event ` +
      `\`${LIVE_EVENTS.refetch}\` says to fetch the stats and visitors again; one that reads ` +
      'nothing for a heartbeat is disconnected. Not X-Requested-With (EventSource cannot send ' +
      'it): a request another site makes (Sec-Fetch-Site or Origin) is refused with 403.',
    access: 'signed-in',
    csrf: 'same-origin',
    params: urlIdParams,
    answers: {
      200: {
        description: 'The event stream',
        streams: 'text/event-stream',
        events: {
          [LIVE_EVENTS.visit]: PUBLIC_SCHEMAS.liveVisit,
          [LIVE_EVENTS.refetch]: z.object({}),
          [LIVE_EVENTS.end]: z.object({ reason: z.enum(Object.values(LIVE_END_REASONS)) }),
        },
      },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      403: sessionOnly('A request from another site'),
      404: error(`'${MESSAGES.urlNotFound}' (unknown, expired or not yours)`),
      429: error(
        'Too many requests, or too many live streams open: of this user, or on the server ' +
          '(both limits set by the operator; close another stream, or try again later)',
        retryAfter('Seconds to wait, when the rate limit refused'),
      ),
      502: EDGE_ANSWERS[502],
      503: EDGE_ANSWERS[503],
      413: EDGE_ANSWERS[413],
      415: EDGE_ANSWERS[415],
    },
  },
  getVisitsCsv: {
    operationId: 'getVisitsCsv',
    method: 'GET',
    path: '/api/stats/{urlID}/visits.csv',
    summary:
      `Every visit of a link as CSV (RFC 4180), oldest first: ${VISITS_CSV_COLUMNS.join(',')}; ` +
      'time in ISO 8601 UTC; a cell starting with = + - or @ starts with an apostrophe',
    access: 'signed-in',
    apiKeyScope: 'stats:read',
    params: urlIdParams,
    answers: {
      200: { description: 'The visits, streamed', streams: 'text/csv' },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: error(`'${MESSAGES.urlNotFound}' (unknown, expired or not yours)`),
      ...EDGE_ANSWERS,
    },
  },
  // API keys (issue 28): managed with a session only, never with a key (no apiKeyScope).
  listApiKeys: {
    operationId: 'listApiKeys',
    method: 'GET',
    path: '/api/keys',
    summary:
      'Your live API keys, newest first: name, scopes, created and last used (to about a ' +
      'minute); never their secrets',
    access: 'signed-in',
    answers: {
      200: { description: 'The keys', body: PUBLIC_SCHEMAS.apiKeys },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      ...EDGE_ANSWERS,
      403: sessionOnly(`${REQUESTED_WITH_HEADER} missing`),
    },
  },
  createApiKey: {
    operationId: 'createApiKey',
    method: 'POST',
    path: '/api/keys',
    summary:
      'Makes an API key: the answer carries the whole key (`key`) once; only a hash of it is ' +
      'kept, so it cannot be shown again',
    access: 'signed-in',
    body: createApiKeyRequestSchema,
    answers: {
      201: { description: 'The key, whole, this once', body: PUBLIC_SCHEMAS.createdApiKey },
      400: error(
        `A name or scopes refused ('${API_KEY_MESSAGES.nameRequired}' for none or a blank ` +
          `one, '${API_KEY_MESSAGES.nameTooLong}', '${API_KEY_MESSAGES.nameControl}', ` +
          `'${API_KEY_MESSAGES.scopesRequired}', '${API_KEY_MESSAGES.unknownScope}'), ` +
          `or a ${UNDECODABLE}`,
      ),
      401: unauthorized,
      409: error(`'${API_KEY_MESSAGES.tooMany}'`),
      ...EDGE_ANSWERS,
      403: sessionOnly(`${REQUESTED_WITH_HEADER} missing`),
    },
  },
  revokeApiKey: {
    operationId: 'revokeApiKey',
    method: 'POST',
    path: '/api/keys/{keyId}/revoke',
    summary:
      'Revokes one of your API keys: refused at once by every gateway instance, whatever it ' +
      'had remembered',
    access: 'signed-in',
    params: z.object({
      keyId: z
        .string()
        .regex(API_KEY_ID_PATTERN)
        .describe("The key's id: 10 characters of 0-9, A-Z, a-z (the key reads shk_{keyId}_...)."),
    }),
    answers: {
      204: { description: 'Revoked' },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: error(`'${API_KEY_MESSAGES.notFound}': unknown, revoked already, or not yours`),
      ...EDGE_ANSWERS,
      403: sessionOnly(`${REQUESTED_WITH_HEADER} missing`),
    },
  },
} as const satisfies Record<string, PublicRoute>;

export type PublicApi = typeof publicApi;
