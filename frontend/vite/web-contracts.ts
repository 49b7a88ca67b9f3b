import { fileURLToPath } from 'node:url';
import type * as Contracts from '@shortener/contracts';
import { runnerImport, type Plugin } from 'vite';
import { z } from 'zod';
import { ANSWER_SCHEMA_KEYWORDS } from '../src/lib/answer-schema';

/** What the web app imports at run time: `import { MESSAGES } from '@shortener/contracts/web'`. */
export const WEB_CONTRACTS_ID = '@shortener/contracts/web';

/** The contracts' constants the web app uses, copied as values into its module. */
const CONSTANTS = [
  'MESSAGES',
  'REQUESTED_WITH_HEADER',
  'NEXT_CURSOR_HEADER',
  'LOGGED_IN_COOKIE',
  'EXPIRY_DAYS',
  'DEFAULT_EXPIRY_DAYS',
  'ANONYMOUS_MAX_EXPIRY_DAYS',
  'VISITS_CURSOR_PATTERN',
] as const satisfies readonly (keyof typeof Contracts)[];

/** The answers the web app reads, each checked against its schema's JSON Schema. */
const SCHEMAS = [
  'userDataSchema',
  'shortenResponseSchema',
  'deleteResponseSchema',
  'visitorsResponseSchema',
  'errorResponseSchema',
] as const satisfies readonly (keyof typeof Contracts)[];

/** Words that describe a schema without constraining it. */
const ANNOTATIONS = new Set(['$schema', 'title', 'description', 'examples', 'default', 'id']);
const UNDERSTOOD = new Set<string>(ANSWER_SCHEMA_KEYWORDS);

/** The JSON Schema of an answer, with what the check does not understand refused loudly. */
function answerJsonSchema(name: string, schema: z.ZodType): unknown {
  const strip = (node: unknown, where: string): unknown => {
    if (Array.isArray(node)) return node.map((item, index) => strip(item, `${where}[${index}]`));
    if (typeof node !== 'object' || node === null) return node;
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (ANNOTATIONS.has(key)) continue;
      if (!UNDERSTOOD.has(key)) {
        throw new Error(
          `${name}${where}: the web app's answer check does not understand "${key}"; ` +
            'teach it to src/lib/answer-schema.ts',
        );
      }
      if (key === 'additionalProperties') continue;
      kept[key] =
        key === 'properties'
          ? Object.fromEntries(
              Object.entries(value as Record<string, unknown>).map(([property, child]) => [
                property,
                strip(child, `${where}.${property}`),
              ]),
            )
          : key === 'items'
            ? strip(value, `${where}[]`)
            : value;
    }
    return kept;
  };
  return strip(z.toJSONSchema(schema, { io: 'output' }), '');
}

function literal(value: unknown): string {
  return value instanceof RegExp ? value.toString() : JSON.stringify(value);
}

/** The module's source: the constants as values and one check per answer schema. */
export function webContractsSource(contracts: typeof Contracts): string {
  const checker = fileURLToPath(new URL('../src/lib/answer-schema.ts', import.meta.url));
  return [
    `import { answerSchema } from ${JSON.stringify(checker)};`,
    ...CONSTANTS.map((name) => `export const ${name} = ${literal(contracts[name])};`),
    ...SCHEMAS.map(
      (name) =>
        `export const ${name} = /* @__PURE__ */ answerSchema(${JSON.stringify(
          answerJsonSchema(name, contracts[name]),
        )});`,
    ),
  ].join('\n');
}

/**
 * `@shortener/contracts/web`: the shared contracts as the browser needs them, made from
 * packages/contracts when the app is built or tested, so that zod stays out of the page.
 */
export function webContracts(): Plugin {
  const resolved = `\0${WEB_CONTRACTS_ID}`;
  return {
    name: 'web-contracts',
    enforce: 'pre',
    resolveId(id) {
      return id === WEB_CONTRACTS_ID ? resolved : null;
    },
    async load(id) {
      if (id !== resolved) return null;
      // The contracts' source, as the app's own alias finds it: no build of the package needed.
      const source = await this.resolve('@shortener/contracts');
      if (!source) throw new Error('@shortener/contracts cannot be resolved.');
      const { module } = await runnerImport<typeof Contracts>(source.id, { configFile: false });
      return webContractsSource(module);
    },
  };
}
