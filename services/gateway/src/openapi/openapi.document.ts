import { z } from 'zod';
import {
  API_KEY_MESSAGES,
  API_KEY_PREFIX,
  API_KEY_SCOPE_DESCRIPTIONS,
  API_KEY_SCOPES,
  LOGGED_IN_COOKIE,
  PUBLIC_SCHEMAS,
  publicApi,
  REQUESTED_WITH_HEADER,
  REQUESTED_WITH_VALUE,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  shortLinkApi,
  signInApi,
  type NamedSchema,
  type PageAnswer,
  type PageRoute,
  type PublicAnswer,
  type PublicRoute,
} from '@shortener/contracts';

type JsonObject = Record<string, unknown>;

/** A zod schema as OpenAPI 3.1 (JSON Schema 2020-12) sees it. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonObject {
  const result: JsonObject = {
    ...z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      override: ({ jsonSchema: json }) => {
        // The bounds every z.int() carries say nothing a client needs.
        if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
        if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
      },
    }),
  };
  // OpenAPI 3.1 documents declare their JSON Schema dialect once, not per schema.
  delete result['$schema'];
  return result;
}

/** A named schema by reference to components/schemas; any other inline. */
function schemaOrReference(schema: NamedSchema | z.ZodType): JsonObject {
  return schema instanceof z.ZodType
    ? jsonSchema(schema)
    : { $ref: `#/components/schemas/${schema.name}` };
}

/**
 * A stream of Server-Sent Events described as one event (the convention OpenAPI 3.2 names
 * itemSchema): the `event:` name and the JSON its `data:` line carries, for each event.
 */
function eventSchema(events: NonNullable<PublicAnswer['events']>): JsonObject {
  return {
    description: 'One event of the stream: its name (event:) and the JSON of its data: line',
    oneOf: Object.entries(events).map(([event, data]) => ({
      type: 'object',
      properties: { event: { const: event }, data: schemaOrReference(data) },
      required: ['event', 'data'],
    })),
  };
}

/** Path or query parameters from the same object schema the gateway validates them with. */
function parameters(schema: z.ZodObject | undefined, where: 'path' | 'query'): JsonObject[] {
  return Object.entries(schema?.shape ?? {}).map(([name, field]) => {
    const { description, ...fieldSchema } = jsonSchema(field as z.ZodType, 'input');
    return {
      name,
      in: where,
      required: where === 'path' || !(field as z.ZodType).safeParse(undefined).success,
      ...(typeof description === 'string' ? { description } : {}),
      schema: fieldSchema,
    };
  });
}

const requestedWith = (keys: boolean) => ({
  name: REQUESTED_WITH_HEADER,
  in: 'header',
  required: !keys,
  description: keys
    ? `Must be ${REQUESTED_WITH_VALUE} on a call made with the session cookie (CSRF ` +
      'defence; without it: 403); a call made with an API key needs none.'
    : `Must be ${REQUESTED_WITH_VALUE} on every call (CSRF defence); without it: 403.`,
  schema: { type: 'string', enum: [REQUESTED_WITH_VALUE] },
});

function response(answer: PublicAnswer): JsonObject {
  return {
    description: answer.description,
    ...(answer.headers
      ? {
          headers: Object.fromEntries(
            Object.entries(answer.headers).map(([name, header]) => [
              name,
              { description: header.description, schema: jsonSchema(header.schema) },
            ]),
          ),
        }
      : {}),
    ...(answer.body
      ? { content: { 'application/json': { schema: schemaOrReference(answer.body) } } }
      : {}),
    ...(answer.streams
      ? {
          content: {
            [answer.streams]: {
              schema: answer.events ? eventSchema(answer.events) : { type: 'string' },
            },
          },
        }
      : {}),
  };
}

/**
 * What a call that takes an API key may also answer, written here once for every entry with
 * an `apiKeyScope` (ApiKeyGuard answers them): beside the entry's own answers of that status.
 */
function keyAnswers(scope: string): Record<number, PublicAnswer> {
  const error = PUBLIC_SCHEMAS.error;
  return {
    400: { description: `'${API_KEY_MESSAGES.repeated}', '${API_KEY_MESSAGES.both}'`, body: error },
    401: {
      description:
        `With an API key: '${API_KEY_MESSAGES.invalid}' (unknown, revoked or malformed), or ` +
        `'${API_KEY_MESSAGES.notBearer}'; WWW-Authenticate: Bearer`,
      body: error,
    },
    403: { description: `'${API_KEY_MESSAGES.missingScope(scope)}'`, body: error },
    429: {
      description:
        `'Too many requests with this API key: please wait {n} seconds...': ` +
        `${API_KEY_LIMITS}; with Retry-After`,
      body: error,
      headers: {
        'Retry-After': { description: 'Seconds to wait', schema: z.number().int() },
      },
    },
  };
}

/** The entry's answers, with those a key adds joined to the same status. */
function answersOf(route: PublicRoute): Record<string, PublicAnswer> {
  const answers: Record<string, PublicAnswer> = { ...route.answers };
  if (route.apiKeyScope === undefined) return answers;
  for (const [status, added] of Object.entries(keyAnswers(route.apiKeyScope))) {
    const own = answers[status];
    answers[status] = own
      ? { ...own, description: `${own.description.replace(/\.$/, '')}. ${added.description}` }
      : added;
  }
  return answers;
}

/** The default per-key limits (API_KEY_RATE_LIMIT, SHORTEN_RATE_LIMIT_API_KEY). */
const API_KEY_LIMITS =
  "120 calls a minute per key by default, and shortening 1,000 links a minute per user's " +
  "keys in all, bulk included, a budget of their own that never spends the web page's " +
  '(API_KEY_RATE_LIMIT and SHORTEN_RATE_LIMIT_API_KEY per RATE_LIMIT_WINDOW_SECONDS)';

/** How the calls authenticate: the session cookie the sign-in sets. */
export const SECURITY_SCHEMES: Readonly<Record<string, JsonObject>> = {
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: `\`${SECURE_SESSION_COOKIE}\` when the origin is https`,
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: `${API_KEY_PREFIX}<id>_<secret>`,
    description:
      '`Authorization: Bearer <key>`, a key made on the profile page (or POST /api/keys), in ' +
      'place of the session on the calls that name it, each with its scope (the security ' +
      'requirement lists it): ' +
      API_KEY_SCOPES.map((scope) => `\`${scope}\`: ${API_KEY_SCOPE_DESCRIPTIONS[scope]}`).join(
        '; ',
      ) +
      '. A key never manages keys, signs out or changes the account. Send no session cookie ' +
      `with it (400), nor ${REQUESTED_WITH_HEADER}. Limits: ${API_KEY_LIMITS}; past one, 429 ` +
      'with Retry-After.',
  },
};

/**
 * Who may make a call, as OpenAPI security requirements (any one suffices): a session; no
 * one for a call anyone may make; and, for a call that names an API key scope, a key with
 * that scope, once the bearer scheme keys use is among the schemes (a requirement naming an
 * undescribed scheme would promise a way in the gateway does not have).
 */
function security(route: PublicRoute, schemes: Readonly<Record<string, JsonObject>>): JsonObject[] {
  const bearer = Object.keys(schemes).find(
    (name) => schemes[name]!['type'] === 'http' && schemes[name]!['scheme'] === 'bearer',
  );
  return [
    ...(route.access === 'anyone' ? [{}] : []),
    { session: [] },
    ...(bearer && route.apiKeyScope ? [{ [bearer]: [route.apiKeyScope] }] : []),
  ];
}

function operation(route: PublicRoute, schemes: Readonly<Record<string, JsonObject>>): JsonObject {
  return {
    operationId: route.operationId,
    summary: route.summary,
    security: security(route, schemes),
    parameters: [
      // A call made with an API key sends no cookie, and needs no X-Requested-With.
      ...(route.csrf === 'same-origin' ? [] : [requestedWith(route.apiKeyScope !== undefined)]),
      ...parameters(route.params, 'path'),
      ...parameters(route.query, 'query'),
    ],
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
          },
        }
      : {}),
    responses: Object.fromEntries(
      Object.entries(answersOf(route)).map(([status, answer]) => [status, response(answer)]),
    ),
  };
}

/** A page's answer as the public API's: a body that is not JSON by its media type. */
const pageAnswer = ({ media, ...answer }: PageAnswer): PublicAnswer => ({
  ...answer,
  ...(media ? { streams: media } : {}),
});

/** A route outside the JSON API (the short link): no credentials, no X-Requested-With. */
function pageOperation(route: PageRoute): JsonObject {
  return {
    operationId: route.operationId,
    summary: route.summary,
    security: [{}],
    parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
    responses: Object.fromEntries(
      Object.entries(route.answers).map(([status, answer]) => [
        status,
        response(pageAnswer(answer)),
      ]),
    ),
  };
}

/**
 * The OpenAPI paths: one operation per route of `publicApi`, then the pages described
 * beside it (the short link).
 */
function paths(
  routes: readonly PublicRoute[],
  pages: readonly PageRoute[],
  schemes: Readonly<Record<string, JsonObject>>,
): JsonObject {
  const byPath: Record<string, JsonObject> = {};
  const add = (route: PublicRoute | PageRoute, described: JsonObject): void => {
    byPath[route.path] = { ...byPath[route.path], [route.method.toLowerCase()]: described };
  };
  for (const route of routes) add(route, operation(route, schemes));
  for (const page of pages) add(page, pageOperation(page));
  return byPath;
}

/**
 * The OpenAPI 3.1 description of the public API (SPEC.md section 7), generated from its
 * description in @shortener/contracts (`publicApi`), the entries the gateway's handlers are
 * bound to: the same zod schemas validate the requests and answers. The short link
 * (`shortLinkApi`) is described beside it, as an API client follows it; sign-in and the ops
 * endpoints are not (browser navigations and an operator's, not calls of the API).
 */
export function buildOpenApiDocument(
  routes: readonly PublicRoute[] = Object.values(publicApi),
  securitySchemes: Readonly<Record<string, JsonObject>> = SECURITY_SCHEMES,
  pages: readonly PageRoute[] = Object.values(shortLinkApi),
): JsonObject {
  return {
    openapi: '3.1.0',
    info: {
      title: 'URL shortener public API',
      version: '1.0.0',
      description:
        `The calls the web page makes. Sign-in is a browser navigation to ${signInApi.signIn.path}?from={path}; ` +
        `it sets the HttpOnly \`${SESSION_COOKIE}\` session cookie (\`${SECURE_SESSION_COOKIE}\` when ` +
        `the origin is https) and the \`${LOGGED_IN_COOKIE}\` cookie the page reads. Sign-out is a ` +
        `form POST to ${signInApi.signOut.path} from this origin (GET ${signInApi.signOutPage.path} ` +
        `only shows that form). Short links resolve at ${shortLinkApi.followShortLink.path}.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // The origin that serves this description: the web page's, whatever name it is reached by.
    servers: [{ url: '/', description: 'This origin' }],
    components: {
      securitySchemes,
      schemas: Object.fromEntries(
        Object.values(PUBLIC_SCHEMAS).map(({ name, schema }) => [name, jsonSchema(schema)]),
      ),
    },
    paths: paths(routes, pages, securitySchemes),
  };
}
