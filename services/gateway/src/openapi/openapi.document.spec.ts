import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { z } from 'zod';
import {
  API_KEY_MESSAGES,
  API_KEY_SCOPES,
  ALIAS_MESSAGES,
  BULK_MESSAGES,
  LIVE_END_REASONS,
  MESSAGES,
  publicApi,
  shortLinkApi,
  STATS_FILTER_MAX,
  STATS_FILTER_MESSAGES,
  TARGET_URL_MESSAGES,
  type PublicRoute,
} from '@shortener/contracts';
import { buildOpenApiDocument, SECURITY_SCHEMES } from './openapi.document';

const REPO_ROOT = path.resolve(__dirname, '../../../..');

// @seriousme/openapi-schema-validator is an ES module, which Jest's CommonJS runtime cannot
// load: it validates in a child process, reading the document from stdin.
const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
console.log(JSON.stringify({ ...result, version: validator.version }));
`;

function validate(document: unknown): { valid: boolean; version: string; errors?: unknown } {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', VALIDATE], {
    cwd: REPO_ROOT,
    input: JSON.stringify(document),
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { valid: boolean; version: string; errors?: unknown };
}

type Operation = {
  operationId: string;
  security: Array<Record<string, string[]>>;
  parameters: Array<{ name: string; in: string; required: boolean; schema: unknown }>;
  requestBody?: unknown;
  responses: Record<string, unknown>;
};

describe('the OpenAPI description', () => {
  const document = buildOpenApiDocument() as {
    paths: Record<string, Record<string, Operation>>;
    components: {
      schemas: Record<string, unknown>;
      securitySchemes: Record<string, Record<string, unknown>>;
    };
  };
  const entries: readonly PublicRoute[] = Object.values(publicApi);
  const entryOf = (operation: Operation): PublicRoute =>
    entries.find((entry) => entry.operationId === operation.operationId)!;
  const SHORT_LINK = shortLinkApi.followShortLink.path;
  /** The calls of the JSON API: every path but the short link, which is followed, not called. */
  const apiPaths = () => Object.entries(document.paths).filter(([route]) => route !== SHORT_LINK);

  it('validates as OpenAPI 3.1', () => {
    const result = validate(document);
    expect(result.errors).toBeUndefined();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  it('is checked by a validator that does reject a broken description', () => {
    const broken = { ...document, paths: { '/api/user': { get: { responses: 'none' } } } };
    expect(validate(broken).valid).toBe(false);
  });

  it('lists the calls of the public API: the four of the spec, the stats, the account analytics, the link pages, bulk links, edit, restore, API keys and domains; and the short link', () => {
    const calls = Object.entries(document.paths).flatMap(([route, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`),
    );
    expect(calls.sort()).toEqual([
      'DELETE /api/domains/{host}',
      'GET /api/analytics',
      'GET /api/analytics/live',
      'GET /api/analytics/visits.csv',
      'GET /api/domains',
      'GET /api/keys',
      'GET /api/links',
      'GET /api/stats/{urlID}',
      'GET /api/stats/{urlID}/live',
      'GET /api/stats/{urlID}/visits.csv',
      'GET /api/user',
      'GET /api/visitors/{urlID}',
      'GET /r/{code}',
      'PATCH /api/links/{urlID}',
      'POST /api/delete/{urlID}',
      'POST /api/domains',
      'POST /api/domains/{host}/restore',
      'POST /api/domains/{host}/verify',
      'POST /api/keys',
      'POST /api/keys/{keyId}/revoke',
      'POST /api/links',
      'POST /api/links/{urlID}/restore',
      'POST /api/shorten/',
    ]);
  });

  it('describes the short link as the redirect service answers it: no credentials, no X-Requested-With', () => {
    const follow = document.paths[SHORT_LINK]!['get']!;
    expect(follow.security).toEqual([{}]);
    expect(follow.parameters).toEqual([
      expect.objectContaining({ name: 'code', in: 'path', required: true }),
    ]);
    expect(Object.keys(follow.responses).sort()).toEqual([
      '302',
      '400',
      '404',
      '429',
      '502',
      '503',
    ]);
    expect(follow.responses['302']).toMatchObject({
      headers: {
        Location: expect.any(Object) as unknown,
        'Cache-Control': expect.any(Object) as unknown,
      },
    });
    expect(follow.responses['302']).not.toHaveProperty('content');
    expect(follow.responses['404']).toMatchObject({ content: { 'text/html': {} } });
    for (const status of ['429', '503']) {
      expect(follow.responses[status]).toHaveProperty('headers.Retry-After');
    }
    expect(follow.responses['400']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  });

  it('takes the shorten parameters and the answers from the zod schemas', () => {
    const shorten = document.paths['/api/shorten/']!['post']!;
    const query = shorten.parameters.filter((parameter) => parameter.in === 'query');
    expect(query).toEqual([
      expect.objectContaining({
        name: 'url',
        required: true,
        schema: { type: 'string', minLength: 1, maxLength: 2048 },
      }),
      expect.objectContaining({ name: 'days', required: false }),
      expect.objectContaining({ name: 'alias', required: false, schema: { type: 'string' } }),
    ]);
    expect(document.components.schemas['ShortenResponse']).toEqual({
      type: 'object',
      properties: { url: { type: 'string' }, loggedIn: { type: 'boolean' } },
      required: ['url', 'loggedIn'],
      additionalProperties: false,
    });
  });

  it('names every refusal of shorten a user can meet under 403, whose message the page shows', () => {
    const shorten = document.paths['/api/shorten/']!['post']!;
    const forbidden = shorten.responses['403'] as { description: string; headers: object };
    for (const message of [
      TARGET_URL_MESSAGES.scheme,
      TARGET_URL_MESSAGES.ownLinks,
      TARGET_URL_MESSAGES.tooLong,
      TARGET_URL_MESSAGES.credentials,
      TARGET_URL_MESSAGES.spaces,
      MESSAGES.loginForExpiry,
      ALIAS_MESSAGES.loginRequired,
      ALIAS_MESSAGES.format,
      ALIAS_MESSAGES.reserved,
      'Too many links shortened',
    ]) {
      expect(forbidden.description).toContain(message);
    }
    expect(forbidden.headers).toHaveProperty('Retry-After');
    const conflict = shorten.responses['409'] as { description: string };
    expect(conflict.description).toContain(ALIAS_MESSAGES.taken);
    expect(conflict.description).toContain(ALIAS_MESSAGES.recentlyDeleted);
  });

  it('describes the bulk call: its JSON array, its per-link answers and its limits', () => {
    const bulk = document.paths['/api/links']!['post']!;
    expect(bulk).toMatchObject({
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'object' } },
          },
        },
      },
      // Keys too, with links:write, now that the bearer scheme is described.
      security: [{ session: [] }, { apiKey: ['links:write'] }],
    });
    expect(bulk.responses['200']).toMatchObject({
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/BulkLinksResult' } },
      },
    });
    for (const status of ['400', '401', '413', '429'])
      expect(bulk.responses).toHaveProperty(status);
    expect((bulk.responses['400'] as { description: string }).description).toContain(
      BULK_MESSAGES.tooMany,
    );
  });

  it('asks every call made with a session for X-Requested-With but the live streams, which EventSource makes', () => {
    for (const [route, methods] of apiPaths()) {
      for (const operation of Object.values(methods)) {
        const requestedWith: unknown = expect.objectContaining({
          name: 'X-Requested-With',
          in: 'header',
          // Not for a call made with an API key, which sends no cookie.
          required: entryOf(operation).apiKeyScope === undefined,
        });
        if (route === '/api/stats/{urlID}/live' || route === '/api/analytics/live') {
          expect(operation.parameters).not.toContainEqual(requestedWith);
        } else {
          expect(operation.parameters).toContainEqual(requestedWith);
        }
        expect(operation.responses).toHaveProperty('403');
      }
    }
  });

  it('describes the streamed answers by their media types', () => {
    const ok = (route: string) => document.paths[route]!['get']!.responses['200'];
    expect(ok('/api/stats/{urlID}/visits.csv')).toMatchObject({
      content: { 'text/csv': { schema: { type: 'string' } } },
    });
    expect(ok('/api/analytics/live')).toMatchObject({
      content: { 'text/event-stream': { schema: { oneOf: expect.any(Array) as unknown } } },
    });
    expect(ok('/api/stats/{urlID}/live')).toMatchObject({
      content: { 'text/event-stream': { schema: { oneOf: expect.any(Array) as unknown } } },
    });
    expect(ok('/api/stats/{urlID}')).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/LinkStats' } } },
    });
  });

  it('describes each event of the live stream with the JSON its data carries', () => {
    const live = document.paths['/api/stats/{urlID}/live']!['get']!.responses['200'] as {
      content: { 'text/event-stream': { schema: { oneOf: unknown[] } } };
    };
    expect(live.content['text/event-stream'].schema.oneOf).toEqual([
      {
        type: 'object',
        properties: { event: { const: 'visit' }, data: { $ref: '#/components/schemas/LiveVisit' } },
        required: ['event', 'data'],
      },
      {
        type: 'object',
        properties: {
          event: { const: 'refetch' },
          data: { type: 'object', properties: {}, additionalProperties: false },
        },
        required: ['event', 'data'],
      },
      {
        type: 'object',
        properties: {
          event: { const: 'end' },
          data: {
            type: 'object',
            properties: {
              reason: { type: 'string', enum: Object.values(LIVE_END_REASONS) },
            },
            required: ['reason'],
            additionalProperties: false,
          },
        },
        required: ['event', 'data'],
      },
    ]);
  });

  it('types every number of the API as an integer: counts, seconds, millisecond timestamps', () => {
    const numbers: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (typeof node !== 'object' || node === null) return;
      if ((node as { type?: unknown }).type === 'number') numbers.push(at);
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    };
    walk(document, '#');
    expect(numbers).toEqual([]);
    expect(document.components.schemas['UserData']).toMatchObject({
      properties: { urls: { items: { properties: { expiresAt: { type: 'integer' } } } } },
    });
  });

  it('describes a request body exactly for the calls that read one', () => {
    const routes: readonly PublicRoute[] = Object.values(publicApi);
    for (const route of routes) {
      const operation = document.paths[route.path]![route.method.toLowerCase()]!;
      expect({ call: route.operationId, requestBody: 'requestBody' in operation }).toEqual({
        call: route.operationId,
        requestBody: route.body !== undefined,
      });
    }
    const edit = document.paths['/api/links/{urlID}']!['patch']!.requestBody as {
      required: boolean;
      content: Record<string, { schema: Record<string, unknown> }>;
    };
    expect(edit.required).toBe(true);
    const schema = edit.content['application/json']!.schema;
    expect(schema['type']).toBe('object');
    expect(Object.keys(schema['properties'] as object)).toEqual([
      'url',
      'days',
      'domain',
      'ios',
      'android',
      'geo',
      'password',
      'maxVisits',
    ]);
    expect(schema['additionalProperties']).toBe(false);
    const withBody = buildOpenApiDocument([
      { ...publicApi.deleteLink, body: z.object({ note: z.string().max(10) }) },
    ]) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(withBody.paths['/api/delete/{urlID}']!['post']!['requestBody']).toEqual({
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { note: { type: 'string', maxLength: 10 } },
            required: ['note'],
          },
        },
      },
    });
    expect(validate(withBody).valid).toBe(true);
  });

  it("asks for a session, or an API key of the call's scope, and offers keys only where the scheme is described", () => {
    const security = (doc: typeof document, route: string, method: string) =>
      doc.paths[route]![method]!.security;
    expect(security(document, '/api/user', 'get')).toEqual([
      { session: [] },
      { apiKey: ['links:read'] },
    ]);
    expect(security(document, '/api/shorten/', 'post')).toEqual([
      {},
      { session: [] },
      { apiKey: ['links:write'] },
    ]);
    expect(security(document, '/api/stats/{urlID}', 'get')).toEqual([
      { session: [] },
      { apiKey: ['stats:read'] },
    ]);
    // The live stream and key management name no scope: keys are not among their ways in.
    expect(security(document, '/api/stats/{urlID}/live', 'get')).toEqual([{ session: [] }]);
    expect(security(document, '/api/keys', 'get')).toEqual([{ session: [] }]);

    const sessionOnly = Object.fromEntries(
      Object.entries(SECURITY_SCHEMES).filter(([name]) => name !== 'apiKey'),
    );
    const withoutKeys = buildOpenApiDocument(undefined, sessionOnly) as typeof document;
    expect(security(withoutKeys, '/api/user', 'get')).toEqual([{ session: [] }]);
    expect(validate(withoutKeys).valid).toBe(true);
  });

  it('describes the bearer scheme with each scope, and which calls take a key with which', () => {
    const scheme = document.components.securitySchemes['apiKey']!;
    expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const scope of API_KEY_SCOPES) expect(scheme['description']).toContain(scope);
    expect(scheme['description']).toContain('120 calls a minute per key');
    for (const [, methods] of apiPaths()) {
      for (const operation of Object.values(methods)) {
        const scope = entryOf(operation).apiKeyScope;
        const keyed = operation.security.filter((way) => 'apiKey' in way);
        expect({ call: operation.operationId, keyed }).toEqual({
          call: operation.operationId,
          keyed: scope === undefined ? [] : [{ apiKey: [scope] }],
        });
        if (scope === undefined) continue;
        const described = (status: string) =>
          (operation.responses[status] as { description: string }).description;
        expect(described('401')).toContain(API_KEY_MESSAGES.invalid);
        expect(described('403')).toContain(API_KEY_MESSAGES.missingScope(scope));
        expect(described('400')).toContain(API_KEY_MESSAGES.both);
        expect(operation.responses['429']).toHaveProperty('headers.Retry-After');
      }
    }
    expect(document.paths['/api/keys']!['get']!.security).toEqual([{ session: [] }]);
  });

  it('describes the link pages: cursor, q and sort, the next page in X-Next-Cursor and the total in X-Total-Count, on /api/user too', () => {
    const links = document.paths['/api/links']!['get']!;
    expect(links.parameters.filter((parameter) => parameter.in === 'query')).toEqual([
      expect.objectContaining({ name: 'cursor', required: false }),
      expect.objectContaining({
        name: 'q',
        required: false,
        schema: expect.objectContaining({ maxLength: 200 }) as unknown,
      }),
      expect.objectContaining({
        name: 'sort',
        required: false,
        schema: expect.objectContaining({ enum: ['newest', 'expiring', 'visits'] }) as unknown,
      }),
    ]);
    for (const path of ['/api/links', '/api/user']) {
      const ok = document.paths[path]!['get']!.responses['200'] as {
        headers: Record<string, unknown>;
      };
      expect(Object.keys(ok.headers)).toEqual(['X-Next-Cursor', 'X-Total-Count']);
    }
    expect(links.responses['200']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Links' } } },
    });
  });

  it("describes the filters of a link's stats, visitor log and CSV, and their refusals", () => {
    const filters: unknown[] = [
      expect.objectContaining({
        name: 'country',
        required: false,
        schema: expect.objectContaining({ pattern: '^[A-Z]{2}$' }) as unknown,
      }),
      expect.objectContaining({
        name: 'device',
        required: false,
        schema: expect.objectContaining({
          enum: ['desktop', 'mobile', 'tablet', 'bot', 'other'],
        }) as unknown,
      }),
      ...['browser', 'os', 'referrer', 'utm_source', 'utm_medium', 'utm_campaign'].map(
        (name): unknown =>
          expect.objectContaining({
            name,
            required: false,
            schema: expect.objectContaining({
              minLength: 1,
              maxLength: STATS_FILTER_MAX,
            }) as unknown,
          }),
      ),
    ];
    const queryOf = (route: string) =>
      document.paths[route]!['get']!.parameters.filter((parameter) => parameter.in === 'query');
    expect(queryOf('/api/stats/{urlID}')).toEqual([
      expect.objectContaining({ name: 'range' }),
      ...filters,
    ]);
    expect(queryOf('/api/visitors/{urlID}')).toEqual([
      expect.objectContaining({ name: 'cursor' }),
      ...filters,
    ]);
    expect(queryOf('/api/stats/{urlID}/visits.csv')).toEqual(filters);
    for (const route of [
      '/api/stats/{urlID}',
      '/api/visitors/{urlID}',
      '/api/stats/{urlID}/visits.csv',
    ]) {
      const refused = document.paths[route]!['get']!.responses['400'] as { description: string };
      for (const message of Object.values(STATS_FILTER_MESSAGES)) {
        expect(refused.description).toContain(message);
      }
    }
  });

  it('writes every description as sentences: no full stop doubled where two are joined', () => {
    const descriptions = JSON.stringify(document).match(/"description":"(?:[^"\\]|\\.)*"/g) ?? [];
    expect(descriptions.length).toBeGreaterThan(50);
    expect(descriptions.filter((text) => /(?<!\.)\.\.(?!\.)/.test(text))).toEqual([]);
  });

  it('says what PATCH needs at least, as JSON Schema says it: one property', () => {
    const patch = document.paths['/api/links/{urlID}']!['patch']!.requestBody as {
      content: { 'application/json': { schema: Record<string, unknown> } };
    };
    expect(patch.content['application/json'].schema).toMatchObject({
      minProperties: 1,
      additionalProperties: false,
    });
  });

  it("describes shorten's own 429 and the 431 of a head too large, not the live stream's", () => {
    const answers = document.paths['/api/shorten/']!['post']!.responses as Record<
      string,
      { description: string }
    >;
    expect(answers['429']!.description).not.toMatch(/live stream/);
    expect(answers['431']!.description).toMatch(/16 KB/);
  });
});
