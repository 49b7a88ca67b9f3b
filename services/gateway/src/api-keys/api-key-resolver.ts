import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { API_KEY_PATTERN, apiKeyId, internalApi, type ApiKeyCaller } from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import { AUTH_CLIENT } from '../backends/backends.module';
import { callBackend } from '../backends/backend-call';
import type { GatewayConfig } from '../config';
import { KEY_REVOCATIONS } from './key-revocations.token';
import type { KeyRevocations } from './key-revocations';

const MAX_ENTRIES = 10_000;

interface Entry {
  caller: Promise<ApiKeyCaller | null>;
  until: number;
}

/**
 * API key -> who it speaks for (auth), remembered for API_KEY_CACHE_MS; a revocation is heard
 * by every instance at once, and while revocations cannot be heard nothing is remembered.
 */
@Injectable()
export class ApiKeyResolver {
  /** Keyed by the key itself, as the session cache is by the cookie; bounded, LRU. */
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES });

  constructor(
    @Inject(AUTH_CLIENT) private readonly auth: InternalClient,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
    @Inject(KEY_REVOCATIONS) private readonly revocations: KeyRevocations,
  ) {
    revocations.onRevoked((keyId) => this.forget(keyId));
    // What was remembered before a gap in the announcements may have been revoked in it.
    revocations.onResumed(() => this.entries.clear());
  }

  /** Null for a malformed, unknown or revoked key; a failing auth service is an error. */
  resolve(key: string, requestId?: string): Promise<ApiKeyCaller | null> {
    if (!API_KEY_PATTERN.test(key)) return Promise.resolve(null);
    const now = Date.now();
    const remembering = this.config.API_KEY_CACHE_MS > 0 && this.revocations.listening();
    const cached = remembering ? this.entries.get(key) : undefined;
    if (cached && cached.until > now) return cached.caller;
    const caller = this.lookUp(key, requestId);
    if (remembering) {
      this.entries.set(key, { caller, until: now + this.config.API_KEY_CACHE_MS });
      caller.catch(() => this.entries.delete(key));
    }
    return caller;
  }

  /** Forgets every remembered key of this id (there is one key per id). */
  forget(keyId: string): void {
    const revoked = [...this.entries.keys()].filter((key) => apiKeyId(key) === keyId);
    for (const key of revoked) this.entries.delete(key);
  }

  private async lookUp(key: string, requestId?: string): Promise<ApiKeyCaller | null> {
    const response = await callBackend(this.auth, internalApi.lookUpApiKey, {
      identity: { userId: null },
      requestId,
      body: { key },
    });
    return response.status === 404 ? null : response.body;
  }
}
