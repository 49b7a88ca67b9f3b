import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { MESSAGES, TARGET_URL_MESSAGES } from '@shortener/contracts';
import { buildOpenApiDocument } from './openapi.document';

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
  parameters: Array<{ name: string; in: string; required: boolean; schema: unknown }>;
  responses: Record<string, unknown>;
};

describe('the OpenAPI description', () => {
  const document = buildOpenApiDocument() as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };

  it('validates as OpenAPI 3.1', () => {
    const result = validate(document);
    expect(result.errors).toBeUndefined();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  it('is checked by a validator that does reject a broken description', () => {
    const broken = { ...document, paths: { '/api/user': { get: { responses: 'none' } } } };
    expect(validate(broken).valid).toBe(false);
  });

  it('lists the calls of the public API: the four of the spec, and the stats', () => {
    const calls = Object.entries(document.paths).flatMap(([route, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`),
    );
    expect(calls.sort()).toEqual([
      'GET /api/stats/{urlID}',
      'GET /api/stats/{urlID}/live',
      'GET /api/stats/{urlID}/visits.csv',
      'GET /api/user',
      'GET /api/visitors/{urlID}',
      'POST /api/delete/{urlID}',
      'POST /api/shorten/',
    ]);
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
      'Too many links shortened',
    ]) {
      expect(forbidden.description).toContain(message);
    }
    expect(forbidden.headers).toHaveProperty('Retry-After');
  });

  it('asks every call for X-Requested-With but the live stream, which EventSource makes', () => {
    for (const [route, methods] of Object.entries(document.paths)) {
      for (const operation of Object.values(methods)) {
        const requestedWith: unknown = expect.objectContaining({
          name: 'X-Requested-With',
          in: 'header',
          required: true,
        });
        if (route === '/api/stats/{urlID}/live') {
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
    expect(ok('/api/stats/{urlID}/live')).toMatchObject({
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    });
    expect(ok('/api/stats/{urlID}')).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/LinkStats' } } },
    });
  });
});
