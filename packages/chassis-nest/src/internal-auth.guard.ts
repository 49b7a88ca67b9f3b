import {
  createParamDecorator,
  Inject,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import type { Request } from 'express';
import { INTERNAL_TOKEN_HEADER } from '@shortener/contracts';
import {
  acceptedSecrets,
  hasBody,
  verifyInternalToken,
  type CallerIdentity,
  type InternalSecretConfig,
  type UsedNonces,
} from '@shortener/chassis';
import type { WithRawBody } from './request-body';
import { SERVICE_CONFIG, USED_NONCES } from './tokens';

type WithCaller = Request & WithRawBody & { caller?: CallerIdentity };

const INVALID = 'Internal token missing or invalid';

/**
 * Lets through only calls signed with the internal secret (during its rotation, either of
 * the two: acceptedSecrets) by the gateway or a sibling service, for this very request: its
 * method, path and body bytes, once. The verified identity is then available through
 * @Caller().
 */
@Injectable()
export class InternalAuthGuard implements CanActivate {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: InternalSecretConfig,
    @Inject(USED_NONCES) private readonly nonces: UsedNonces,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<WithCaller>();
    // A body the service did not read (a type it does not parse) is not one the token
    // could be checked against.
    if (request.rawBody === undefined && hasBody(request)) throw new UnauthorizedException(INVALID);
    const now = Date.now();
    const token = verifyInternalToken(
      acceptedSecrets(this.config),
      request.header(INTERNAL_TOKEN_HEADER),
      { method: request.method, path: request.originalUrl, body: request.rawBody },
      now,
    );
    if (!token || !this.nonces.claim(token.nonce, token.expiresAt, now)) {
      throw new UnauthorizedException(INVALID);
    }
    request.caller = token.identity;
    return true;
  }
}

/** The identity the caller vouched for; only on routes guarded by InternalAuthGuard. */
export const Caller = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const caller = context.switchToHttp().getRequest<WithCaller>().caller;
  if (!caller) throw new UnauthorizedException(INVALID);
  return caller;
});
