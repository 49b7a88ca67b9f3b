import { z } from 'zod';
import {
  deleteResponseSchema,
  errorResponseSchema,
  MESSAGES,
  NEXT_CURSOR_HEADER,
  REQUESTED_WITH_HEADER,
  shortenResponseSchema,
  userDataSchema,
  visitorsResponseSchema,
} from './api';
import { shortenQuerySchema, urlIdSchema, visitorsQuerySchema } from './api-requests';
import { TARGET_URL_MESSAGES } from './links';

/**
 * Each call of the public API (SPEC.md section 7) described once: its route, who may make
 * it, its parameters and every answer with its schema. The gateway's OpenAPI description is
 * generated from this list, and a test checks it against the gateway's controllers, so the
 * description and the routes cannot drift apart.
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
  readonly headers?: Readonly<Record<string, { description: string; schema: z.ZodType }>>;
}

export interface PublicRoute {
  readonly operationId: string;
  readonly method: 'GET' | 'POST';
  /** The path as OpenAPI writes it: `{name}` for a path parameter. */
  readonly path: string;
  readonly summary: string;
  /** `signed-in`: a session is required (401 without); `anyone`: signed in or not. */
  readonly access: 'signed-in' | 'anyone';
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** By status; the first 2xx is the success answer. */
  readonly answers: Readonly<Record<number, PublicAnswer>>;
}

export const PUBLIC_SCHEMAS = {
  userData: { name: 'UserData', schema: userDataSchema },
  shortenResponse: { name: 'ShortenResponse', schema: shortenResponseSchema },
  deleteResponse: { name: 'DeleteResponse', schema: deleteResponseSchema },
  visitors: { name: 'Visitors', schema: visitorsResponseSchema },
  error: { name: 'Error', schema: errorResponseSchema },
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

const urlIdParams = z.object({ urlID: urlIdSchema });

export const publicApi = {
  getUser: {
    operationId: 'getUser',
    method: 'GET',
    path: '/api/user',
    summary: "The signed-in user's name, picture and live links with visit counts",
    access: 'signed-in',
    answers: {
      200: { description: 'User data', body: PUBLIC_SCHEMAS.userData },
      400: error(`A ${UNDECODABLE}`),
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
    query: shortenQuerySchema,
    answers: {
      201: { description: 'The short code', body: PUBLIC_SCHEMAS.shortenResponse },
      400: error(
        `No url, more than one, or one that is not an absolute URL (input the web page ` +
          `never sends), or a ${UNDECODABLE}`,
      ),
      403: error(
        // The page shows a 403's message and reads anything else as 'Server error'
        // (SPEC section 8), so every refusal a user can meet says why with a 403.
        'Refused, with a message the page shows: ' +
          [
            `'${TARGET_URL_MESSAGES.scheme}'`,
            `'${TARGET_URL_MESSAGES.ownLinks}' (this service's hosts, and this machine in any spelling)`,
            `'${TARGET_URL_MESSAGES.tooLong}'`,
            `'${TARGET_URL_MESSAGES.credentials}'`,
            `'${TARGET_URL_MESSAGES.spaces}'`,
            `'${MESSAGES.loginForExpiry}' (anonymous, days > 7)`,
            "'Too many links shortened: please wait {n} seconds...' (the shorten rate " +
              'limit, per user or per address for anonymous callers; with Retry-After)',
          ].join('; ') +
          `. Also ${REQUESTED_WITH_HEADER} missing.`,
        retryAfter('Seconds to wait, when the shorten rate limit refused'),
      ),
      413: EDGE_ANSWERS[413],
      415: EDGE_ANSWERS[415],
      429: EDGE_ANSWERS[429],
      502: EDGE_ANSWERS[502],
      503: EDGE_ANSWERS[503],
    },
  },
  deleteLink: {
    operationId: 'deleteLink',
    method: 'POST',
    path: '/api/delete/{urlID}',
    summary: 'Deletes one of your links, its visits and its redirect',
    access: 'signed-in',
    params: urlIdParams,
    answers: {
      200: { description: 'Deleted', body: PUBLIC_SCHEMAS.deleteResponse },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: error(`'${MESSAGES.urlNotFound}': unknown, expired or not yours`),
      ...EDGE_ANSWERS,
    },
  },
  getVisitors: {
    operationId: 'getVisitors',
    method: 'GET',
    path: '/api/visitors/{urlID}',
    summary: "One page of a link's visits, newest first",
    access: 'signed-in',
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
      400: error(`The cursor is not valid, or a ${UNDECODABLE}`),
      401: unauthorized,
      404: error(
        `'${MESSAGES.noVisitors}' (no visits yet), or '${MESSAGES.urlNotFound}' (unknown, expired or not yours)`,
      ),
      ...EDGE_ANSWERS,
    },
  },
} as const satisfies Record<string, PublicRoute>;

export type PublicApi = typeof publicApi;
