import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from '@shortener/contracts';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';
import { clientKey } from '../edge/client-address';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { SessionResolver } from '../session/session-resolver';
import { upstreamProxy } from './upstream-proxy';

/** The sign-in routes (signInApi) to the auth service, which runs the whole browser sign-in and out. */
@Injectable()
export class AuthProxyMiddleware implements NestMiddleware {
  private readonly proxy: RequestHandler;

  constructor(
    @Inject(SERVICE_CONFIG) config: GatewayConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
  ) {
    this.proxy = upstreamProxy('auth', config.AUTH_URL, logger);
  }

  use(req: Request, res: Response, next: NextFunction): void {
    this.proxy(req, res, next);
  }
}

/** Sign-in attempts per address, so the OAuth endpoints cannot be hammered through us. */
@Injectable()
export class SignInRateLimitMiddleware implements NestMiddleware {
  constructor(@Inject(RateLimitService) private readonly limits: RateLimitService) {}

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    await this.limits.enforce('sign-in', clientKey(req), res);
    next();
  }
}

/**
 * Signing out, or in again (which ends the session the browser had), through this gateway
 * drops its cached session at once: before the auth service answers, and again once it
 * has, so a lookup made in between does not keep the ended session for SESSION_CACHE_MS.
 */
@Injectable()
export class ForgetSessionMiddleware implements NestMiddleware {
  constructor(@Inject(SessionResolver) private readonly sessions: SessionResolver) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const cookies = req.cookies as Record<string, unknown> | undefined;
    const forget = (): void => {
      this.sessions.forget(cookies?.[SECURE_SESSION_COOKIE]);
      this.sessions.forget(cookies?.[SESSION_COOKIE]);
    };
    forget();
    res.on('finish', forget);
    next();
  }
}
