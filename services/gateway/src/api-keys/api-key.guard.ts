import {
  BadRequestException,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { API_KEY_MESSAGES, type PublicRoute } from '@shortener/contracts';
import { boundEntry, SERVICE_CONFIG } from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { presentedSession } from '../session/session-cookie';
import { setApiKeyCaller } from './api-key-caller';
import { ApiKeyResolver } from './api-key-resolver';

const BEARER = /^Bearer +(\S+) *$/i;

/** How many times a header came (Node keeps only the first Authorization). */
function occurrences(req: Request, name: string): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === name) count += 1;
  }
  return count;
}

function invalid(res: Response, message: string): UnauthorizedException {
  // RFC 6750: a refused bearer token says so in WWW-Authenticate.
  res.setHeader('www-authenticate', 'Bearer error="invalid_token"');
  return new UnauthorizedException({ message });
}

/**
 * A bearer key in place of a session, only on calls whose publicApi entry names its scope; any
 * other call refuses a key. Runs before the session guards; no Authorization passes untouched.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(ApiKeyResolver) private readonly keys: ApiKeyResolver,
    @Inject(RateLimitService) private readonly limits: RateLimitService,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { id?: unknown; user?: unknown }>();
    const res = http.getResponse<Response>();
    const header = req.headers.authorization;
    if (header === undefined) return true;
    if (occurrences(req, 'authorization') > 1) {
      throw new BadRequestException(API_KEY_MESSAGES.repeated);
    }
    // Which of the two the caller meant is not ours to guess.
    if (presentedSession(req, this.config) !== undefined) {
      throw new BadRequestException(API_KEY_MESSAGES.both);
    }
    const scope = (boundEntry(context.getHandler()) as PublicRoute | undefined)?.apiKeyScope;
    if (scope === undefined) throw new ForbiddenException(API_KEY_MESSAGES.sessionOnly);
    const key = BEARER.exec(header)?.[1];
    if (key === undefined) throw invalid(res, API_KEY_MESSAGES.notBearer);
    const caller = await this.keys.resolve(key, typeof req.id === 'string' ? req.id : undefined);
    if (!caller) throw invalid(res, API_KEY_MESSAGES.invalid);
    if (!caller.scopes.includes(scope)) {
      throw new ForbiddenException(API_KEY_MESSAGES.missingScope(scope));
    }
    await this.limits.enforce('api-key', caller.keyId, res);
    setApiKeyCaller(req, caller);
    req.user = caller.user;
    return true;
  }
}
