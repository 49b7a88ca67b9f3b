import { z } from 'zod';
import { MESSAGES } from './api';
import { urlIdSchema } from './api-requests';
import { location, page, type PageRoute } from './page-routes';
import { retryAfter } from './public-api/answers';
import { PUBLIC_SCHEMAS } from './public-api/types';

/**
 * The short link: the redirect service answers it, reached past the JSON API's edge (the
 * Ingress, or on one machine the gateway's fast path, sends /r/ straight there).
 */
export const shortLinkApi = {
  followShortLink: {
    operationId: 'followShortLink',
    method: 'GET',
    path: '/r/{code}',
    summary:
      "A short link: a redirect to the link's destination, the visit counted (HEAD redirects " +
      'without a visit). Served by the redirect service, not the JSON API: no X-Requested-With, ' +
      'no session',
    params: z.object({
      code: urlIdSchema.describe(
        `${urlIdSchema.description ?? ''} Anything else answers 404 without a lookup.`,
      ),
    }),
    answers: {
      302: {
        description: 'A live link: to its destination, every visit (private, no-store; noindex)',
        headers: {
          ...location("The link's destination"),
          'Cache-Control': { description: 'private, no-store', schema: z.string() },
          'X-Robots-Tag': { description: 'noindex', schema: z.string() },
        },
      },
      400: {
        description: `'${MESSAGES.noBodyOnShortLink}': a request that carries a body`,
        body: PUBLIC_SCHEMAS.error,
      },
      404: page('Unknown, malformed, deleted or expired: a page that says so, linking home'),
      429: {
        ...page('Too many unknown short links asked for from this address'),
        headers: retryAfter('Seconds to wait'),
      },
      502: {
        description: `'${MESSAGES.serverError}': the redirect service could not be reached`,
        body: PUBLIC_SCHEMAS.error,
      },
      503: {
        ...page('The link cannot be looked up right now'),
        headers: retryAfter('Seconds to wait'),
      },
    },
  },
} as const satisfies Record<string, PageRoute>;

/** Where a short link's path starts: `/r/` (the code follows). */
export const SHORT_LINK_PREFIX = shortLinkApi.followShortLink.path.slice(
  0,
  shortLinkApi.followShortLink.path.indexOf('{'),
);
