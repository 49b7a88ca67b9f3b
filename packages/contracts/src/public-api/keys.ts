import { z } from 'zod';
import { REQUESTED_WITH_HEADER } from '../api';
import { API_KEY_ID_PATTERN, API_KEY_MESSAGES, createApiKeyRequestSchema } from '../api-keys';
import { EDGE_ANSWERS, error, sessionOnly, UNDECODABLE, unauthorized } from './answers';
import { PUBLIC_SCHEMAS, type PublicRoute } from './types';

/** API keys (issue 28): managed with a session only, never with a key (no apiKeyScope). */
export const keysApi = {
  listApiKeys: {
    operationId: 'listApiKeys',
    method: 'GET',
    path: '/api/keys',
    summary:
      'Your live API keys, newest first: name, scopes, created and last used (to about a ' +
      'minute); never their secrets',
    access: 'signed-in',
    answers: {
      200: { description: 'The keys', body: PUBLIC_SCHEMAS.apiKeys },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      ...EDGE_ANSWERS,
      403: sessionOnly(`${REQUESTED_WITH_HEADER} missing`),
    },
  },
  createApiKey: {
    operationId: 'createApiKey',
    method: 'POST',
    path: '/api/keys',
    summary:
      'Makes an API key: the answer carries the whole key (`key`) once; only a hash of it is ' +
      'kept, so it cannot be shown again',
    access: 'signed-in',
    body: createApiKeyRequestSchema,
    answers: {
      201: { description: 'The key, whole, this once', body: PUBLIC_SCHEMAS.createdApiKey },
      400: error(
        `A name or scopes refused ('${API_KEY_MESSAGES.nameRequired}' for none or a blank ` +
          `one, '${API_KEY_MESSAGES.nameTooLong}', '${API_KEY_MESSAGES.nameControl}', ` +
          `'${API_KEY_MESSAGES.scopesRequired}', '${API_KEY_MESSAGES.unknownScope}'), ` +
          `or a ${UNDECODABLE}`,
      ),
      401: unauthorized,
      409: error(`'${API_KEY_MESSAGES.tooMany}'`),
      ...EDGE_ANSWERS,
      403: sessionOnly(`${REQUESTED_WITH_HEADER} missing`),
    },
  },
  revokeApiKey: {
    operationId: 'revokeApiKey',
    method: 'POST',
    path: '/api/keys/{keyId}/revoke',
    summary:
      'Revokes one of your API keys: refused at once by every gateway instance, whatever it ' +
      'had remembered',
    access: 'signed-in',
    params: z.object({
      keyId: z
        .string()
        .regex(API_KEY_ID_PATTERN)
        .describe("The key's id: 10 characters of 0-9, A-Z, a-z (the key reads shk_{keyId}_...)."),
    }),
    answers: {
      204: { description: 'Revoked' },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: error(`'${API_KEY_MESSAGES.notFound}': unknown, revoked already, or not yours`),
      ...EDGE_ANSWERS,
      403: sessionOnly(`${REQUESTED_WITH_HEADER} missing`),
    },
  },
} as const satisfies Record<string, PublicRoute>;
