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
import { verifyInternalToken, type CallerIdentity } from '../internal-auth';
import { SERVICE_CONFIG } from './tokens';

type WithCaller = Request & { caller?: CallerIdentity };

/**
 * Lets through only calls signed with the internal secret (by the gateway or a sibling
 * service); the verified identity is then available through @Caller().
 */
@Injectable()
export class InternalAuthGuard implements CanActivate {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: { INTERNAL_API_SECRET: string }) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<WithCaller>();
    const identity = verifyInternalToken(
      this.config.INTERNAL_API_SECRET,
      request.header(INTERNAL_TOKEN_HEADER),
      request.method,
      request.originalUrl,
    );
    if (!identity) throw new UnauthorizedException('Internal token missing or invalid');
    request.caller = identity;
    return true;
  }
}

/** The identity the caller vouched for; only on routes guarded by InternalAuthGuard. */
export const Caller = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const caller = context.switchToHttp().getRequest<WithCaller>().caller;
  if (!caller) throw new UnauthorizedException('Internal token missing or invalid');
  return caller;
});
