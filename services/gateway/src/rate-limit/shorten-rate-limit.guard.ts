import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { SessionUser } from '@shortener/contracts';
import { apiKeyCallerOf } from '../api-keys/api-key-caller';
import { clientKey } from '../edge/client-address';
import { RateLimitService } from './rate-limit.service';

/**
 * Shortening is limited per user when signed in, per address otherwise, and stricter for
 * anonymous visitors. Runs after the session guard, which tells who is calling.
 */
@Injectable()
export class ShortenRateLimitGuard implements CanActivate {
  constructor(@Inject(RateLimitService) private readonly limits: RateLimitService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user?: SessionUser | null }>();
    const res = http.getResponse<Response>();
    // A key's shortening counts per user, apart from the web page's, and answers 429.
    if (req.user && apiKeyCallerOf(req)) {
      await this.limits.enforce('shorten-api-key', req.user.id, res);
    } else if (req.user) await this.limits.enforce('shorten-signed-in', req.user.id, res);
    else await this.limits.enforce('shorten-anonymous', clientKey(req), res);
    return true;
  }
}
