/**
 * `@shortener/contracts/web-api-keys`, made at build time by vite/web-contracts.ts: the API
 * keys section's constants and answer checks, loaded with the profile page only.
 */
import type * as contracts from '@shortener/contracts';
import type { Schema } from './lib/api';

/** Copied as JSON: its one function (missingScope) does not come along. */
export declare const API_KEY_MESSAGES: Omit<typeof contracts.API_KEY_MESSAGES, 'missingScope'>;
export declare const API_KEY_SCOPES: typeof contracts.API_KEY_SCOPES;
export declare const API_KEY_SCOPE_DESCRIPTIONS: typeof contracts.API_KEY_SCOPE_DESCRIPTIONS;
export declare const API_KEY_NAME_MAX: typeof contracts.API_KEY_NAME_MAX;

export declare const apiKeysSchema: Schema<contracts.ApiKey[]>;
export declare const createdApiKeySchema: Schema<contracts.CreatedApiKey>;

export type { ApiKey, ApiKeyScope, CreatedApiKey } from '@shortener/contracts';
