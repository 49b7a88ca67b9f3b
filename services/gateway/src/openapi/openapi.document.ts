import { z } from 'zod';
import {
  deleteResponseSchema,
  errorResponseSchema,
  LOGGED_IN_COOKIE,
  MESSAGES,
  NEXT_CURSOR_HEADER,
  REQUESTED_WITH_HEADER,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  shortenQuerySchema,
  TARGET_URL_MESSAGES,
  shortenResponseSchema,
  urlIdSchema,
  userDataSchema,
  visitorsQuerySchema,
  visitorsResponseSchema,
} from '@shortener/contracts';
import { REQUESTED_WITH_VALUE } from '../edge/requested-with.middleware';

type JsonObject = Record<string, unknown>;

/** A zod schema as OpenAPI 3.1 (JSON Schema 2020-12) sees it. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonObject {
  // OpenAPI 3.1 documents declare their JSON Schema dialect once, not per schema.
  const result: JsonObject = { ...z.toJSONSchema(schema, { io, unrepresentable: 'any' }) };
  delete result['$schema'];
  return result;
}

/** Query parameters from the same object schema the gateway validates them with. */
function queryParameters(schema: z.ZodObject): JsonObject[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const { description, ...fieldSchema } = jsonSchema(field as z.ZodType, 'input');
    return {
      name,
      in: 'query',
      required: !(field as z.ZodType).safeParse(undefined).success,
      ...(typeof description === 'string' ? { description } : {}),
      schema: fieldSchema,
    };
  });
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });

function error(description: string, headers?: JsonObject): JsonObject {
  return { description, content: json(ref('Error')), ...(headers ? { headers } : {}) };
}

const requestedWith = {
  name: REQUESTED_WITH_HEADER,
  in: 'header',
  required: true,
  description: `Must be ${REQUESTED_WITH_VALUE} on every call (CSRF defence); without it: 403.`,
  schema: { type: 'string', enum: [REQUESTED_WITH_VALUE] },
};

const urlIdParameter = (() => {
  const { description, ...schema } = jsonSchema(urlIdSchema, 'input');
  return { name: 'urlID', in: 'path', required: true, description, schema };
})();

const common = {
  '403': error(`${REQUESTED_WITH_HEADER} missing or wrong`),
  '429': error('Too many requests', {
    'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
  }),
  '503': error('A service behind the gateway is unavailable'),
  // These calls take no body; one is still read (after the rate limit) and refused if bad.
  '413': error('A request body over 16 KB'),
  '415': error('A request body in a Content-Encoding other than gzip, deflate or br'),
};

const undecodable = 'request body that cannot be decoded (corrupt gzip, say)';

const unauthorized = error(
  `Not signed in: {message: '${MESSAGES.unauthorized}', callBack: '/login?from=...'}`,
);

/**
 * The OpenAPI 3.1 description of the public API (SPEC.md section 7), built from the zod
 * schemas that validate the requests and answers, so the two cannot drift apart.
 */
export function buildOpenApiDocument(): JsonObject {
  return {
    openapi: '3.1.0',
    info: {
      title: 'URL shortener public API',
      version: '1.0.0',
      description:
        'The calls the web page makes. Sign-in is a browser navigation to /login?from={path}; ' +
        `it sets the HttpOnly \`${SESSION_COOKIE}\` session cookie (\`${SECURE_SESSION_COOKIE}\` when ` +
        `the origin is https) and the \`${LOGGED_IN_COOKIE}\` cookie the page reads. Sign-out is a ` +
        'form POST to /logout from this origin (GET /logout only shows that form). ' +
        'Short links resolve at /r/{urlID}.',
    },
    components: {
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: `\`${SECURE_SESSION_COOKIE}\` when the origin is https`,
        },
      },
      schemas: {
        UserData: jsonSchema(userDataSchema),
        ShortenResponse: jsonSchema(shortenResponseSchema),
        DeleteResponse: jsonSchema(deleteResponseSchema),
        Visitors: jsonSchema(visitorsResponseSchema),
        Error: jsonSchema(errorResponseSchema),
      },
    },
    paths: {
      '/api/user': {
        get: {
          operationId: 'getUser',
          summary: "The signed-in user's name, picture and live links with visit counts",
          security: [{ session: [] }],
          parameters: [requestedWith],
          responses: {
            '200': { description: 'User data', content: json(ref('UserData')) },
            '400': error(`A ${undecodable}`),
            '401': unauthorized,
            ...common,
          },
        },
      },
      '/api/shorten/': {
        post: {
          operationId: 'shorten',
          summary: 'Shortens a URL; signed in or not (anonymous links expire after 7 days)',
          security: [{}, { session: [] }],
          parameters: [requestedWith, ...queryParameters(shortenQuerySchema)],
          responses: {
            '201': { description: 'The short code', content: json(ref('ShortenResponse')) },
            '400': error(
              `No url, more than one, or one that is not an absolute URL (input the web page ` +
                `never sends), or a ${undecodable}`,
            ),
            '403': error(
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
              {
                'Retry-After': {
                  description: 'Seconds to wait, when the shorten rate limit refused',
                  schema: { type: 'integer' },
                },
              },
            ),
            '413': common['413'],
            '415': common['415'],
            '429': common['429'],
            '503': common['503'],
          },
        },
      },
      '/api/delete/{urlID}': {
        post: {
          operationId: 'deleteLink',
          summary: 'Deletes one of your links, its visits and its redirect',
          security: [{ session: [] }],
          parameters: [requestedWith, urlIdParameter],
          responses: {
            '200': { description: 'Deleted', content: json(ref('DeleteResponse')) },
            '400': error(`A ${undecodable}`),
            '401': unauthorized,
            '404': error(`'${MESSAGES.urlNotFound}': unknown, expired or not yours`),
            ...common,
          },
        },
      },
      '/api/visitors/{urlID}': {
        get: {
          operationId: 'getVisitors',
          summary: "One page of a link's visits, newest first",
          security: [{ session: [] }],
          parameters: [requestedWith, urlIdParameter, ...queryParameters(visitorsQuerySchema)],
          responses: {
            '200': {
              description: 'Visits',
              headers: {
                [NEXT_CURSOR_HEADER]: {
                  description: 'Present when there are more: pass it as ?cursor= for the next page',
                  schema: { type: 'string' },
                },
              },
              content: json(ref('Visitors')),
            },
            '400': error(`The cursor is not valid, or a ${undecodable}`),
            '401': unauthorized,
            '404': error(
              `'${MESSAGES.noVisitors}' (no visits yet), or '${MESSAGES.urlNotFound}' (unknown, expired or not yours)`,
            ),
            ...common,
          },
        },
      },
    },
  };
}
