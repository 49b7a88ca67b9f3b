import { z } from 'zod';
import {
  LOGGED_IN_COOKIE,
  PUBLIC_SCHEMAS,
  publicApi,
  REQUESTED_WITH_HEADER,
  REQUESTED_WITH_VALUE,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
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

const requestedWith = {
  name: REQUESTED_WITH_HEADER,
  in: 'header',
  required: true,
  description: `Must be ${REQUESTED_WITH_VALUE} on every call (CSRF defence); without it: 403.`,
  schema: { type: 'string', enum: [REQUESTED_WITH_VALUE] },
};

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
      ? {
          content: {
            'application/json': { schema: { $ref: `#/components/schemas/${answer.body.name}` } },
          },
        }
      : {}),
  };
}

function operation(route: PublicRoute): JsonObject {
  return {
    operationId: route.operationId,
    summary: route.summary,
    security: route.access === 'signed-in' ? [{ session: [] }] : [{}, { session: [] }],
    parameters: [
      requestedWith,
      ...parameters(route.params, 'path'),
      ...parameters(route.query, 'query'),
    ],
    responses: Object.fromEntries(
      Object.entries(route.answers).map(([status, answer]) => [status, response(answer)]),
    ),
  };
}

/** The OpenAPI paths of the public API: one operation per route of `publicApi`. */
function paths(routes: readonly PublicRoute[]): JsonObject {
  const byPath: Record<string, JsonObject> = {};
  for (const route of routes) {
    byPath[route.path] = { ...byPath[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  return byPath;
}

/**
 * The OpenAPI 3.1 description of the public API (SPEC.md section 7), generated from its
 * description in @shortener/contracts (`publicApi`): the same zod schemas validate the
 * requests and answers, and a test holds the route list to the gateway's controllers.
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
      schemas: Object.fromEntries(
        Object.values(PUBLIC_SCHEMAS).map(({ name, schema }) => [name, jsonSchema(schema)]),
      ),
    },
    paths: paths(Object.values(publicApi)),
  };
}
