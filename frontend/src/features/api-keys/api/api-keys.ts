import {
  apiKeysSchema,
  createdApiKeySchema,
  type ApiKey,
  type ApiKeyScope,
  type CreatedApiKey,
} from '@shortener/contracts/web-api-keys';
import { apiRequest, type ApiResult, type FailurePolicy, type Schema } from '../../../lib/api';

/** Every refusal of key management says why in its message (400, 401, 404, 409, 429...). */
const SHOWS_SERVER_MESSAGE: FailurePolicy = {
  showsServerMessage: (status) => status >= 400 && status < 500,
};

/** A 204 has no body to check. */
const NO_CONTENT: Schema<undefined> = {
  safeParse: (value) =>
    value === undefined ? { success: true, data: undefined } : { success: false },
};

/** GET /api/keys: the user's live keys, newest first. */
export function listApiKeys(): Promise<ApiResult<ApiKey[]>> {
  return apiRequest('GET', '/api/keys', apiKeysSchema, SHOWS_SERVER_MESSAGE);
}

/** POST /api/keys: the new key, whole, this once. */
export function createApiKey(
  name: string,
  scopes: readonly ApiKeyScope[],
): Promise<ApiResult<CreatedApiKey>> {
  return apiRequest('POST', '/api/keys', createdApiKeySchema, SHOWS_SERVER_MESSAGE, {
    name,
    scopes,
  });
}

/** POST /api/keys/{id}/revoke. */
export function revokeApiKey(id: string): Promise<ApiResult<undefined>> {
  return apiRequest(
    'POST',
    `/api/keys/${encodeURIComponent(id)}/revoke`,
    NO_CONTENT,
    SHOWS_SERVER_MESSAGE,
  );
}
