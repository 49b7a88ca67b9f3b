import {
  apiKeysApi,
  type ApiKey,
  type ApiKeyScope,
  type CreatedApiKey,
} from '@shortener/contracts/web-api-keys';
import { apiRequest, type ApiResult, type FailurePolicy } from '../../../lib/api';

/** Every refusal of key management says why in its message (400, 401, 404, 409, 429...). */
const SHOWS_SERVER_MESSAGE: FailurePolicy = {
  showsServerMessage: (status) => status >= 400 && status < 500,
};

/** publicApi.listApiKeys: the user's live keys, newest first. */
export function listApiKeys(): Promise<ApiResult<ApiKey[]>> {
  return apiRequest(apiKeysApi.listApiKeys, SHOWS_SERVER_MESSAGE);
}

/** publicApi.createApiKey: the new key, whole, this once. */
export function createApiKey(
  name: string,
  scopes: readonly ApiKeyScope[],
): Promise<ApiResult<CreatedApiKey>> {
  return apiRequest(apiKeysApi.createApiKey, SHOWS_SERVER_MESSAGE, { body: { name, scopes } });
}

/** publicApi.revokeApiKey: a 204, no body. */
export function revokeApiKey(id: string): Promise<ApiResult<undefined>> {
  return apiRequest(apiKeysApi.revokeApiKey, SHOWS_SERVER_MESSAGE, { params: { keyId: id } });
}
