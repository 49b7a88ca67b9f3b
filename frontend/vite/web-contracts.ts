import { fileURLToPath } from 'node:url';
import type * as Contracts from '@shortener/contracts';
import { runnerImport, type Plugin } from 'vite';
import { z } from 'zod';
import { ANSWER_SCHEMA_KEYWORDS } from '../src/lib/answer-schema';

/** What the web app imports at run time: `import { MESSAGES } from '@shortener/contracts/web'`. */
export const WEB_CONTRACTS_ID = '@shortener/contracts/web';
/**
 * The stats section's contracts, a module of their own so that they load with the lazily
 * loaded stats code and never weigh on the home page.
 */
export const WEB_STATS_CONTRACTS_ID = '@shortener/contracts/web-stats';
/** The profile page's API keys section: loaded with that page only. */
export const WEB_API_KEYS_CONTRACTS_ID = '@shortener/contracts/web-api-keys';

/** The contracts' constants the web app uses, copied as values into its module. */
const CONSTANTS = [
  'MESSAGES',
  'REQUESTED_WITH_HEADER',
  'NEXT_CURSOR_HEADER',
  'TOTAL_COUNT_HEADER',
  'LOGGED_IN_COOKIE',
  'EXPIRY_DAYS',
  'DEFAULT_EXPIRY_DAYS',
  'ANONYMOUS_MAX_EXPIRY_DAYS',
  'VISITS_CURSOR_PATTERN',
  'DELETE_UNDO_OFFER_MS',
  'DELETED_CODE_KEPT_DAYS',
  'LINKS_PAGE_SIZE',
  'LINKS_SEARCH_MAX',
  'LINKS_SORTS',
  'ALIAS_MAX_LENGTH',
  'ALIAS_MESSAGES',
  'WEB_APP_PAGES',
  'SHORT_LINK_PREFIX',
] as const satisfies readonly (keyof typeof Contracts)[];

/** The answers the web app reads, each checked against its schema's JSON Schema. */
const SCHEMAS = [
  'userDataSchema',
  'linksResponseSchema',
  'shortenResponseSchema',
  'deleteResponseSchema',
  'visitorsResponseSchema',
  'errorResponseSchema',
  'shortLinkSchema',
] as const satisfies readonly (keyof typeof Contracts)[];

/** The stats section's constants and answers (`@shortener/contracts/web-stats`). */
const STATS_CONSTANTS = [
  'STATS_RANGES',
  'DEFAULT_STATS_RANGE',
  'UNKNOWN_COUNTRY',
  'DIRECT_REFERRER',
  'OTHER_ENTRY',
  'LIVE_EVENTS',
  'LIVE_END_REASONS',
] as const satisfies readonly (keyof typeof Contracts)[];
const STATS_SCHEMAS = [
  'linkStatsSchema',
  'liveVisitSchema',
] as const satisfies readonly (keyof typeof Contracts)[];

/** The API keys section's constants and answers (`@shortener/contracts/web-api-keys`). */
const API_KEYS_CONSTANTS = [
  'API_KEY_MESSAGES',
  'API_KEY_SCOPES',
  'API_KEY_SCOPE_DESCRIPTIONS',
  'API_KEY_NAME_MAX',
] as const satisfies readonly (keyof typeof Contracts)[];
const API_KEYS_SCHEMAS = [
  'apiKeysSchema',
  'createdApiKeySchema',
] as const satisfies readonly (keyof typeof Contracts)[];

/**
 * Constraints the stats answers carry that the home page's check does not know, and that
 * the stats section does not need checked: an enum's values (range, interval, device: the
 * value is still checked to be a string, and the section shows any name it is given) and a
 * list's length (the section shows every entry). Teaching them to the check would make the
 * home page's JavaScript grow for the sake of a lazily loaded page.
 */
const STATS_LOOSENED = new Set(['enum', 'maxItems']);

/** Words that describe a schema without constraining it. */
const ANNOTATIONS = new Set(['$schema', 'title', 'description', 'examples', 'default', 'id']);
const UNDERSTOOD = new Set<string>(ANSWER_SCHEMA_KEYWORDS);

/** The JSON Schema of an answer, with what the check does not understand refused loudly. */
function answerJsonSchema(
  name: string,
  schema: z.ZodType,
  loosened: ReadonlySet<string> = new Set(),
): unknown {
  const strip = (node: unknown, where: string): unknown => {
    if (Array.isArray(node)) return node.map((item, index) => strip(item, `${where}[${index}]`));
    if (typeof node !== 'object' || node === null) return node;
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (ANNOTATIONS.has(key) || loosened.has(key)) continue;
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

function moduleSource(
  contracts: typeof Contracts,
  constants: readonly (keyof typeof Contracts)[],
  schemas: readonly (keyof typeof Contracts)[],
  loosened?: ReadonlySet<string>,
): string {
  const checker = fileURLToPath(new URL('../src/lib/answer-schema.ts', import.meta.url));
  return [
    `import { answerSchema } from ${JSON.stringify(checker)};`,
    ...constants.map((name) => `export const ${name} = ${literal(contracts[name])};`),
    ...schemas.map(
      (name) =>
        `export const ${name} = /* @__PURE__ */ answerSchema(${JSON.stringify(
          answerJsonSchema(name, contracts[name] as z.ZodType, loosened),
        )});`,
    ),
  ].join('\n');
}

/** The module's source: the constants as values and one check per answer schema. */
export function webContractsSource(contracts: typeof Contracts): string {
  return moduleSource(contracts, CONSTANTS, SCHEMAS);
}

/** The stats section's module: its constants and the checks of its two answers. */
export function webStatsContractsSource(contracts: typeof Contracts): string {
  return moduleSource(contracts, STATS_CONSTANTS, STATS_SCHEMAS, STATS_LOOSENED);
}

/** The API keys section's module; a scope's name is shown as given (its enum loosened). */
export function webApiKeysContractsSource(contracts: typeof Contracts): string {
  return moduleSource(contracts, API_KEYS_CONSTANTS, API_KEYS_SCHEMAS, new Set(['enum']));
}

/**
 * `@shortener/contracts/web`: the shared contracts as the browser needs them, made from
 * packages/contracts when the app is built or tested, so that zod stays out of the page.
 */
export function webContracts(): Plugin {
  const sources = new Map([
    [`\0${WEB_CONTRACTS_ID}`, webContractsSource],
    [`\0${WEB_STATS_CONTRACTS_ID}`, webStatsContractsSource],
    [`\0${WEB_API_KEYS_CONTRACTS_ID}`, webApiKeysContractsSource],
  ]);
  return {
    name: 'web-contracts',
    enforce: 'pre',
    resolveId(id) {
      return id === WEB_CONTRACTS_ID ||
        id === WEB_STATS_CONTRACTS_ID ||
        id === WEB_API_KEYS_CONTRACTS_ID
        ? `\0${id}`
        : null;
    },
    async load(id) {
      const sourceOf = sources.get(id);
      if (!sourceOf) return null;
      // The contracts' source, as the app's own alias finds it: no build of the package needed.
      const source = await this.resolve('@shortener/contracts');
      if (!source) throw new Error('@shortener/contracts cannot be resolved.');
      const { module } = await runnerImport<typeof Contracts>(source.id, { configFile: false });
      return sourceOf(module);
    },
  };
}
