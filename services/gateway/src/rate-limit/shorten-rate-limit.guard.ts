import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { SessionUser } from '@shortener/contracts';
import { apiKeyCallerOf } from '../api-keys/api-key-caller';
import { clientKey } from '../edge/client-address';
import { RateLimitService, type RateLimitBucket } from './rate-limit.service';

/**
 * Whose shortening budget a call spends: a key's calls the user's keys' own budget (a script
 * must never lock its owner's web page out), a signed-in page its user's, anyone else their
 * address's. After the session guard, which tells who is calling.
 */
export function shortenBudget(
  req: Request,
  user: SessionUser | null | undefined,
): { bucket: RateLimitBucket; subject: string } {
  if (!user) return { bucket: 'shorten-anonymous', subject: clientKey(req) };
  return {
    bucket: apiKeyCallerOf(req) ? 'shorten-api-key' : 'shorten-signed-in',
    subject: user.id,
  };
}

/** Shortening is limited per user when signed in, per address otherwise (shortenBudget). */
@Injectable()
export class ShortenRateLimitGuard implements CanActivate {
  constructor(@Inject(RateLimitService) private readonly limits: RateLimitService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user?: SessionUser | null }>();
    const { bucket, subject } = shortenBudget(req, req.user);
    await this.limits.enforce(bucket, subject, http.getResponse<Response>());
    return true;
  }
}
