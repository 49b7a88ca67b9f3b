/**
 * `@shortener/contracts/web-api-keys`, made at build time by vite/web-contracts.ts:
 * the API keys section's constants, calls and answer checks, loaded with its page only.
 * Written from the lists of vite/web-contracts-source.ts by
 * `npx vitest run -u src/contracts-web.test.ts` (the test fails when it is stale): do not edit.
 */
import type * as contracts from '@shortener/contracts';
import type { WebRouteOf, WebSchemaOf } from './lib/api-route';

export declare const API_KEY_MESSAGES: Omit<typeof contracts.API_KEY_MESSAGES, 'missingScope'>;
export declare const API_KEY_SCOPES: typeof contracts.API_KEY_SCOPES;
export declare const API_KEY_SCOPE_DESCRIPTIONS: typeof contracts.API_KEY_SCOPE_DESCRIPTIONS;
export declare const API_KEY_NAME_MAX: typeof contracts.API_KEY_NAME_MAX;
export declare const API_DOCS_PATH: typeof contracts.API_DOCS_PATH;

export declare const apiKeysSchema: WebSchemaOf<typeof contracts.apiKeysSchema>;
export declare const createdApiKeySchema: WebSchemaOf<typeof contracts.createdApiKeySchema>;

export declare const apiKeysApi: {
  listApiKeys: WebRouteOf<typeof contracts.publicApi.listApiKeys>;
  createApiKey: WebRouteOf<typeof contracts.publicApi.createApiKey>;
  revokeApiKey: WebRouteOf<typeof contracts.publicApi.revokeApiKey>;
};

export type * from '@shortener/contracts';
