import { applyDecorators, UseGuards, type CanActivate, type Type } from '@nestjs/common';
import type { PublicRoute } from '@shortener/contracts';
import { Route, type Refusal } from '@shortener/chassis-nest';
import { ApiKeyGuard } from '../api-keys/api-key.guard';
import { OptionalSessionGuard, SignedInGuard } from '../session/session.guards';

/**
 * A handler of the public API bound to its `publicApi` entry: the route, its inputs (@Input)
 * and who may call it, from the entry's `access` (SignedInGuard answers 401 without a
 * session) and `apiKeyScope` (ApiKeyGuard, first: a key stands for a session where the
 * entry allows one). `guards` run after the caller is known; `refuse` answers a refused query.
 */
export function ApiRoute(
  entry: PublicRoute,
  options: { guards?: Type<CanActivate>[]; refuse?: Refusal } = {},
): MethodDecorator {
  return applyDecorators(
    Route(entry, options.refuse),
    UseGuards(
      // An API key (Authorization: Bearer) where the entry's apiKeyScope allows one.
      ApiKeyGuard,
      entry.access === 'signed-in' ? SignedInGuard : OptionalSessionGuard,
      ...(options.guards ?? []),
    ),
  );
}
