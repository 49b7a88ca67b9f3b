import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { internalApi, SESSION_ID_PATTERN, type SessionUser } from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import { AUTH_CLIENT } from '../backends/backends.module';
import { callBackend } from '../backends/backend-call';
import type { GatewayConfig } from '../config';

const MAX_ENTRIES = 10_000;

interface Entry {
  user: Promise<SessionUser | null>;
  until: number;
}

/**
 * Session cookie -> user, through the auth service, remembered for SESSION_CACHE_MS so a
 * page's burst of calls costs one lookup (calls in flight share it). A forged, unknown or
 * expired id is "nobody"; an auth service that cannot answer is an error, never "nobody",
 * so a passing outage does not sign anyone out.
 */
@Injectable()
export class SessionResolver {
  /** Bounded: the least recently used session goes first. Expiry is the entry's `until`. */
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES });

  constructor(
    @Inject(AUTH_CLIENT) private readonly auth: InternalClient,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
  ) {}

  resolve(sessionId: unknown, requestId?: string): Promise<SessionUser | null> {
    if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) {
      return Promise.resolve(null);
    }
    const now = Date.now();
    const cached = this.entries.get(sessionId);
    if (cached && cached.until > now) return cached.user;
    const user = this.lookUp(sessionId, requestId);
    this.remember(sessionId, { user, until: now + this.config.SESSION_CACHE_MS });
    user.catch(() => this.entries.delete(sessionId));
    return user;
  }

  /** Signing out through this gateway takes effect here at once. */
  forget(sessionId: unknown): void {
    if (typeof sessionId === 'string') this.entries.delete(sessionId);
  }

  private async lookUp(sessionId: string, requestId?: string): Promise<SessionUser | null> {
    const response = await callBackend(this.auth, internalApi.lookUpSession, {
      identity: { userId: null },
      requestId,
      body: { sessionId },
    });
    return response.status === 404 ? null : response.body.user;
  }

  private remember(sessionId: string, entry: Entry): void {
    if (this.config.SESSION_CACHE_MS === 0) return;
    this.entries.set(sessionId, entry);
  }
}
