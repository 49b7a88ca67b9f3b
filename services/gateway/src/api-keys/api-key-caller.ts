import type { Request } from 'express';
import type { ApiKeyCaller } from '@shortener/contracts';

/** The key a request was made with, once ApiKeyGuard has accepted it. */
const callers = new WeakMap<Request, ApiKeyCaller>();

export function setApiKeyCaller(req: Request, caller: ApiKeyCaller): void {
  callers.set(req, caller);
}

/** Undefined for a call made with a session (or as nobody). */
export function apiKeyCallerOf(req: Request): ApiKeyCaller | undefined {
  return callers.get(req);
}
