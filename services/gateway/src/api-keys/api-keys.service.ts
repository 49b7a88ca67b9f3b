import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { Logger } from 'pino';
import {
  API_KEY_MESSAGES,
  internalApi,
  type ApiKey,
  type CreateApiKeyRequest,
  type CreatedApiKey,
  type SessionUser,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { SERVICE_LOGGER } from '@shortener/chassis-nest';
import { AUTH_CLIENT } from '../backends/backends.module';
import { callBackend, refusal } from '../backends/backend-call';
import { ApiKeyResolver } from './api-key-resolver';
import { KEY_REVOCATIONS } from './key-revocations.token';
import type { KeyRevocations } from './key-revocations';

/** The signed-in user's API keys, as the auth service keeps them. */
@Injectable()
export class ApiKeysService {
  constructor(
    @Inject(AUTH_CLIENT) private readonly auth: InternalClient,
    @Inject(ApiKeyResolver) private readonly resolver: ApiKeyResolver,
    @Inject(KEY_REVOCATIONS) private readonly revocations: KeyRevocations,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  async list(user: SessionUser, requestId?: string): Promise<ApiKey[]> {
    const response = await callBackend(this.auth, internalApi.listApiKeys, {
      identity: { userId: user.id },
      requestId,
    });
    return response.body.keys;
  }

  async create(
    user: SessionUser,
    request: CreateApiKeyRequest,
    requestId?: string,
  ): Promise<CreatedApiKey> {
    const response = await callBackend(this.auth, internalApi.createApiKey, {
      identity: { userId: user.id },
      requestId,
      body: request,
    });
    if (response.status !== 201) throw refusal(response);
    return response.body;
  }

  /**
   * Revoked in the auth service, then forgotten here and announced to every other instance
   * before the answer, so no instance takes the key once the owner has been told it is gone.
   */
  async revoke(user: SessionUser, keyId: string, requestId?: string): Promise<void> {
    const response = await callBackend(this.auth, internalApi.revokeApiKey, {
      params: { id: keyId },
      identity: { userId: user.id },
      requestId,
    });
    if (response.status === 404) throw new NotFoundException(API_KEY_MESSAGES.notFound);
    this.resolver.forget(keyId);
    try {
      await this.revocations.announce(keyId);
    } catch (error) {
      // The other instances cannot hear it either while Redis is away, and they remember
      // nothing meanwhile (ApiKeyResolver); a lost message alone is bounded by API_KEY_CACHE_MS.
      this.logger.warn({ err: String(error), keyId }, 'api key revocation not announced');
    }
  }
}
