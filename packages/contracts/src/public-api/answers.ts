import { z } from 'zod';
import { MESSAGES, NEXT_CURSOR_HEADER, REQUESTED_WITH_HEADER, TOTAL_COUNT_HEADER } from '../api';
import { urlIdSchema } from '../api-requests';
import { API_KEY_MESSAGES } from '../api-keys';
import { LINKS_PAGE_SIZE } from '../internal';
import { PUBLIC_SCHEMAS, type PublicAnswer } from './types';

/** The answers and parameters the entries of several areas share. */

export const error = (description: string, headers?: PublicAnswer['headers']): PublicAnswer => ({
  description,
  body: PUBLIC_SCHEMAS.error,
  ...(headers ? { headers } : {}),
});

export const retryAfter = (description: string) => ({
  'Retry-After': { description, schema: z.number().int() },
});

/** What the gateway's edge may answer to any call, before or around the route itself. */
export const EDGE_ANSWERS = {
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

export const UNDECODABLE = 'request body that cannot be decoded (corrupt gzip, say)';

export const unauthorized = error(
  `Not signed in: {message: '${MESSAGES.unauthorized}', callBack: '/login?from=...'}`,
);

/**
 * A call only a session may make refuses any API key with 403, before looking it up: a
 * revoked or unknown key is refused the same, never 401.
 */
export const sessionOnly = (other: string): PublicAnswer =>
  error(`${other}, or '${API_KEY_MESSAGES.sessionOnly}' (any API key, valid or not)`);

export const urlIdParams = z.object({ urlID: urlIdSchema });

/** The headers of a page of links (/api/user, /api/links): the next page, the total. */
export const nextLinksHeader = {
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
