import { fileURLToPath } from 'node:url';
import type * as Contracts from '@shortener/contracts';
import { z } from 'zod';
import { ANSWER_SCHEMA_KEYWORDS } from '../src/lib/answer-schema';

/** One of the web app's contracts modules: what it carries, and the file that declares it. */
export interface WebContractsModule {
  /** What the web app imports: `import { MESSAGES } from '@shortener/contracts/web'`. */
  readonly id: string;
  /** Its declarations, generated (frontend/src, as tsconfig.json's paths name them). */
  readonly declarations: string;
  readonly about: string;
  /** The contracts' constants the web app uses, copied as values. */
  readonly constants: readonly ContractName[];
  /** The answers the web app reads, each checked against its schema's JSON Schema. */
  readonly schemas: readonly ContractName[];
  /** Its entries of publicApi, as a table named `name`, each answer checked by its schema. */
  readonly routes: { readonly name: string; readonly operations: readonly Operation[] };
  /** JSON Schema keywords left out of its checks. */
  readonly loosened?: ReadonlySet<string>;
}

type ContractName = keyof typeof Contracts;
type Operation = keyof typeof Contracts.publicApi;

/**
 * Constraints the stats answers carry that the home page's check does not know, and that
 * the stats section does not need checked: an enum's values (range, interval, device: the
 * value is still checked to be a string, and the section shows any name it is given) and a
 * list's length (the section shows every entry). Teaching them to the check would make the
 * home page's JavaScript grow for the sake of a lazily loaded page.
 */
const STATS_LOOSENED = new Set(['enum', 'maxItems']);

export const WEB_CONTRACTS_MODULES: readonly WebContractsModule[] = [
  {
    id: '@shortener/contracts/web',
    declarations: 'src/contracts-web.d.ts',
    about: "the contracts' constants, calls and answer checks, without zod",
    constants: [
      'MESSAGES',
      'REQUESTED_WITH_HEADER',
      'REQUESTED_WITH_VALUE',
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
    ],
    schemas: [
      'userDataSchema',
      'linksResponseSchema',
      'shortenResponseSchema',
      'deleteResponseSchema',
      'visitorsResponseSchema',
      'errorResponseSchema',
      'shortLinkSchema',
    ],
    routes: {
      name: 'webApi',
      operations: [
        'getUser',
        'listLinks',
        'shorten',
        'deleteLink',
        'editLink',
        'restoreLink',
        'getVisitors',
      ],
    },
  },
  {
    // A module of its own, so that it loads with the lazily loaded stats code and never
    // weighs on the home page.
    id: '@shortener/contracts/web-stats',
    declarations: 'src/contracts-web-stats.d.ts',
    about: "the stats section's constants, calls and answer checks, loaded with its code only",
    constants: [
      'STATS_RANGES',
      'DEFAULT_STATS_RANGE',
      'UNKNOWN_COUNTRY',
      'DIRECT_REFERRER',
      'OTHER_ENTRY',
      'LIVE_EVENTS',
      'LIVE_END_REASONS',
    ],
    schemas: ['linkStatsSchema', 'liveVisitSchema'],
    routes: { name: 'statsApi', operations: ['getStats', 'getLiveVisits', 'getVisitsCsv'] },
    loosened: STATS_LOOSENED,
  },
  {
    // The analytics page's own, loaded with its lazily loaded chunk.
    id: '@shortener/contracts/web-analytics',
    declarations: 'src/contracts-web-analytics.d.ts',
    about: "the analytics page's constants, call and answer check, loaded with its page only",
    constants: ['STATS_RANGES', 'DEFAULT_STATS_RANGE', 'OTHER_ENTRY'],
    schemas: ['accountStatsSchema'],
    routes: {
      name: 'analyticsApi',
      operations: ['getAnalytics', 'getAnalyticsCsv', 'getAnalyticsLive'],
    },
    loosened: STATS_LOOSENED,
  },
  {
    id: '@shortener/contracts/web-api-keys',
    declarations: 'src/contracts-web-api-keys.d.ts',
    about: "the API keys section's constants, calls and answer checks, loaded with its page only",
    constants: [
      'API_KEY_MESSAGES',
      'API_KEY_SCOPES',
      'API_KEY_SCOPE_DESCRIPTIONS',
      'API_KEY_NAME_MAX',
      'API_DOCS_PATH',
    ],
    schemas: ['apiKeysSchema', 'createdApiKeySchema'],
    routes: { name: 'apiKeysApi', operations: ['listApiKeys', 'createApiKey', 'revokeApiKey'] },
    // A scope's name is shown as given.
    loosened: new Set(['enum']),
  },
  {
    id: '@shortener/contracts/web-domains',
    declarations: 'src/contracts-web-domains.d.ts',
    about: "the domains section's constants, calls and answer checks, loaded with its page only",
    constants: ['DOMAIN_HOST_MAX'],
    schemas: ['domainSchema', 'domainsSchema'],
    routes: {
      name: 'domainsApi',
      operations: ['listDomains', 'addDomain', 'verifyDomain', 'deleteDomain', 'restoreDomain'],
    },
  },
  {
    // Loaded with the link form's options only: the home page stays within its budget.
    id: '@shortener/contracts/web-link-rules',
    declarations: 'src/contracts-web-link-rules.d.ts',
    about: "the link options' constants and the call that creates a link with them",
    constants: ['LINK_PASSWORD_MAX', 'MAX_VISITS_MAX'],
    schemas: ['bulkLinksResponseSchema'],
    routes: { name: 'linkRulesApi', operations: ['createLinks'] },
  },
];

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
      // A map's values are checked (a zod record); an object's `false` needs nothing.
      if (key === 'additionalProperties') {
        if (typeof value === 'object' && value !== null) kept[key] = strip(value, `${where}{}`);
        continue;
      }
      if (key === 'propertyNames') continue;
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

/** The success answer of a publicApi entry: the first 2xx. */
function successOf(contracts: typeof Contracts, operation: Operation): Contracts.PublicAnswer {
  const answer = Object.entries<Contracts.PublicAnswer>(
    contracts.publicApi[operation].answers,
  ).find(([status]) => status.startsWith('2'))?.[1];
  if (!answer) throw new Error(`publicApi.${operation} has no success answer`);
  return answer;
}

/** The module's source: the constants as values, one check per answer schema, the calls. */
export function webContractsSource(
  contracts: typeof Contracts,
  module: WebContractsModule,
): string {
  const checker = fileURLToPath(new URL('../src/lib/answer-schema.ts', import.meta.url));
  const route = (operation: Operation): string => {
    const { method, path } = contracts.publicApi[operation];
    const { body, streams } = successOf(contracts, operation);
    const answer = body && module.schemas.find((name) => contracts[name] === body.schema);
    if (body && !answer) {
      throw new Error(`${module.id}: publicApi.${operation} answers a schema it does not carry`);
    }
    const fields = [`method: ${literal(method)}`, `path: ${literal(path)}`];
    if (answer) fields.push(`answer: ${answer}`);
    if (streams) fields.push(`streams: ${literal(streams)}`);
    return `${operation}: { ${fields.join(', ')} }`;
  };
  return [
    `import { answerSchema } from ${JSON.stringify(checker)};`,
    ...module.constants.map((name) => `export const ${name} = ${literal(contracts[name])};`),
    ...module.schemas.map(
      (name) =>
        `export const ${name} = /* @__PURE__ */ answerSchema(${JSON.stringify(
          answerJsonSchema(name, contracts[name] as z.ZodType, module.loosened),
        )});`,
    ),
    `export const ${module.routes.name} = { ${module.routes.operations.map(route).join(', ')} };`,
  ].join('\n');
}

/**
 * The module's declarations, from the same lists (src/contracts-web.test.ts checks the
 * committed files; `npx vitest run -u src/contracts-web.test.ts` writes them again).
 */
export function webContractsDeclarations(
  contracts: typeof Contracts,
  module: WebContractsModule,
): string {
  const constant = (name: ContractName): string => {
    // Copied as JSON: a constant's functions do not come along.
    const functions = Object.entries(contracts[name])
      .filter(([, value]) => typeof value === 'function')
      .map(([key]) => `'${key}'`);
    const type = functions.length
      ? `Omit<typeof contracts.${name}, ${functions.join(' | ')}>`
      : `typeof contracts.${name}`;
    return `export declare const ${name}: ${type};`;
  };
  return [
    '/**',
    ` * \`${module.id}\`, made at build time by vite/web-contracts.ts:`,
    ` * ${module.about}.`,
    ' * Written from the lists of vite/web-contracts-source.ts by',
    ' * `npx vitest run -u src/contracts-web.test.ts` (the test fails when it is stale): do not edit.',
    ' */',
    "import type * as contracts from '@shortener/contracts';",
    "import type { WebRouteOf, WebSchemaOf } from './lib/api-route';",
    '',
    ...module.constants.map(constant),
    '',
    ...module.schemas.map(
      (name) => `export declare const ${name}: WebSchemaOf<typeof contracts.${name}>;`,
    ),
    '',
    `export declare const ${module.routes.name}: {`,
    ...module.routes.operations.map(
      (operation) => `  ${operation}: WebRouteOf<typeof contracts.publicApi.${operation}>;`,
    ),
    '};',
    '',
    "export type * from '@shortener/contracts';",
    '',
  ].join('\n');
}
