import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport';
import type { SessionUser } from '@shortener/contracts';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';
import { presentedSession } from './session-cookie';
import { SessionResolver } from './session-resolver';

export const SESSION_STRATEGY = 'session-cookie';

type Verified = (error: unknown, user?: SessionUser | false) => void;

/** A passport strategy that authenticates by the session cookie; `verify` resolves it. */
class SessionCookieStrategyBase extends Strategy {
  constructor(private readonly verify: (req: Request, done: Verified) => void) {
    super();
  }

  override authenticate(req: Request): void {
    this.verify(req, (error, user) => {
      if (error) this.error(error);
      else if (user) this.success(user);
      else this.fail(401);
    });
  }
}

@Injectable()
export class SessionCookieStrategy extends PassportStrategy(
  SessionCookieStrategyBase,
  SESSION_STRATEGY,
) {
  constructor(
    @Inject(SessionResolver) private readonly sessions: SessionResolver,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
  ) {
    super();
  }

  async validate(req: Request & { id?: unknown }): Promise<SessionUser | false> {
    const requestId = typeof req.id === 'string' ? req.id : undefined;
    return (await this.sessions.resolve(presentedSession(req, this.config), requestId)) ?? false;
  }
}
