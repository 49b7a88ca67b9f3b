import { z } from 'zod';
import { hasNoControlCharacters } from './api-requests';
import { sessionUserSchema } from './sessions';

/**
 * API keys: what a script sends as `Authorization: Bearer <key>` in place of a session. The
 * auth service makes and keeps them (only a hash of each), the gateway resolves them.
 */

/** What an API key may be allowed to do, each scope a set of calls (PublicRoute.apiKeyScope). */
export const API_KEY_SCOPES = ['links:write', 'links:read', 'stats:read'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** What each scope lets a key do, for the web page and the OpenAPI description. */
export const API_KEY_SCOPE_DESCRIPTIONS: Readonly<Record<ApiKeyScope, string>> = {
  'links:write': 'Shorten, edit and delete your links',
  'links:read': 'List your links',
  'stats:read': "Read your links' statistics, visitors and CSV exports",
};

/**
 * A key reads `shk_<id>_<secret>`: the fixed prefix lets secret scanners (GitHub's among them)
 * find a leaked key in code or logs, the id (public, 10 base62 characters) lets a user tell
 * their keys apart, and the secret is 40 base62 characters from the cryptographic source
 * (238 bits). The id and the secret are base62, so `_` only ever separates them.
 */
export const API_KEY_PREFIX = 'shk_';
export const API_KEY_ID_LENGTH = 10;
export const API_KEY_SECRET_LENGTH = 40;
export const API_KEY_ID_PATTERN = /^[0-9A-Za-z]{10}$/;
export const API_KEY_PATTERN = /^shk_([0-9A-Za-z]{10})_[0-9A-Za-z]{40}$/;

/** The key's id, or undefined for what is not a key. */
export function apiKeyId(key: string): string | undefined {
  return API_KEY_PATTERN.exec(key)?.[1];
}

/** The part of a key a user may see again: `shk_<id>`. */
export function apiKeyLabel(id: string): string {
  return `${API_KEY_PREFIX}${id}`;
}

/** Live keys one user may hold. */
export const API_KEYS_PER_USER = 50;
export const API_KEY_NAME_MAX = 100;

export const API_KEY_MESSAGES = {
  nameRequired: 'Give the key a name.',
  nameTooLong: `A key's name is at most ${API_KEY_NAME_MAX} characters.`,
  nameControl: "A key's name must not contain control characters.",
  scopesRequired: `Choose at least one scope: ${API_KEY_SCOPES.join(', ')}.`,
  unknownScope: `Scopes are ${API_KEY_SCOPES.join(', ')}.`,
  tooMany: `You have ${API_KEYS_PER_USER} API keys: revoke one you no longer use first.`,
  notFound: 'API key not found',
  /** 401: no such key, a revoked one, or not a key at all. */
  invalid: 'Invalid or revoked API key',
  /** 401: an Authorization header that is not `Bearer <key>`. */
  notBearer: 'The Authorization header must be "Bearer <API key>".',
  /** 400: the header twice. */
  repeated: 'Send one Authorization header.',
  /** 400: a session cookie and a key on one call. */
  both: 'Send either a session cookie or an API key, not both.',
  /** 403: a call that takes sessions only (key management, the live stream...). */
  sessionOnly: 'This call needs a signed-in session: an API key cannot make it.',
  /** 403: the key lacks the call's scope. */
  missingScope: (scope: string) => `This API key lacks the scope ${scope} this call needs.`,
} as const;

const scopeSchema = z.enum(API_KEY_SCOPES, { error: API_KEY_MESSAGES.unknownScope });

/** POST /api/keys: a name to tell the key by, and what it may do. */
export const createApiKeyRequestSchema = z.object({
  name: z
    .string({ error: API_KEY_MESSAGES.nameRequired })
    .trim()
    .min(1, { error: API_KEY_MESSAGES.nameRequired })
    .max(API_KEY_NAME_MAX, { error: API_KEY_MESSAGES.nameTooLong })
    .refine(hasNoControlCharacters, { error: API_KEY_MESSAGES.nameControl })
    .describe(
      `A name to tell the key by: up to ${API_KEY_NAME_MAX} characters once the spaces around ` +
        'it are trimmed, not blank, no control characters.',
    ),
  scopes: z
    .array(scopeSchema, { error: API_KEY_MESSAGES.scopesRequired })
    .min(1, { error: API_KEY_MESSAGES.scopesRequired })
    .max(API_KEY_SCOPES.length, { error: API_KEY_MESSAGES.unknownScope })
    .transform((scopes) => [...new Set(scopes)])
    .describe(`What the key may do: one or more of ${API_KEY_SCOPES.join(', ')}.`),
});
export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequestSchema>;

/** A key as its owner sees it again: never its secret. */
export const apiKeySchema = z.object({
  /** The key's public id: revoke it by this. */
  id: z.string(),
  /** `shk_<id>`: how the key starts. */
  label: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  /** Milliseconds since the epoch. */
  createdAt: z.number().int(),
  /** Milliseconds since the epoch, to about a minute; absent while never used. */
  lastUsedAt: z.number().int().optional(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

/** GET /api/keys: the caller's live keys, newest first. */
export const apiKeysSchema = z.array(apiKeySchema);

/** POST /api/keys answers the key once, whole: it cannot be shown again. */
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

// The auth service's lookup (internalApi.lookUpApiKey) takes the key in a body, as the
// session lookup takes its id: never in a URL or a header that lands in access logs.
export const apiKeyLookupSchema = z.object({ key: z.string().max(200) });

/** Who a key speaks for, and what it may do. */
export const apiKeyCallerSchema = z.object({
  user: sessionUserSchema,
  keyId: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
});
export type ApiKeyCaller = z.infer<typeof apiKeyCallerSchema>;

export const internalApiKeyListSchema = z.object({ keys: apiKeysSchema });
