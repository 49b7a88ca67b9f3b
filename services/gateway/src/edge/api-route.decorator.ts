import { UseGuards, type CanActivate, type Type } from '@nestjs/common';
import type { PublicRoute } from '@shortener/contracts';
import { Route, type Refusal, type RouteDecorator } from '@shortener/chassis-nest';
import { ApiKeyGuard } from '../api-keys/api-key.guard';
import { OptionalSessionGuard, SignedInGuard } from '../session/session.guards';

/**
 * A handler of the public API bound to its `publicApi` entry: the route, its inputs (@Input)
 * and who may call it, from the entry's `access` (SignedInGuard answers 401 without a
 * session) and `apiKeyScope` (ApiKeyGuard, first: a key stands for a session where the
 * entry allows one). `guards` run after the caller is known; `refuse` answers a refused query.
 */
export function ApiRoute<const Entry extends PublicRoute>(
  entry: Entry,
  options: { guards?: Type<CanActivate>[]; refuse?: Refusal } = {},
): RouteDecorator<Entry> {
  const route = Route(entry, options.refuse);
  const guards = UseGuards(
    // An API key (Authorization: Bearer) where the entry's apiKeyScope allows one.
    ApiKeyGuard,
    entry.access === 'signed-in' ? SignedInGuard : OptionalSessionGuard,
    ...(options.guards ?? []),
  );
  return (target, key, descriptor) => {
    route(target, key, descriptor);
    guards(target, key, descriptor);
  };
}
