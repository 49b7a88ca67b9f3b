import {
  createParamDecorator,
  Inject,
  Injectable,
  InternalServerErrorException,
  UnauthorizedException,
  type ExecutionContext,
} from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { CookieOptions, Request, Response } from 'express';
import { LOGGED_IN_COOKIE, MESSAGES, signInLink, type SessionUser } from '@shortener/contracts';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import { apiKeyCallerOf } from '../api-keys/api-key-caller';
import { secureCookies, type GatewayConfig } from '../config';
import { callbackFrom } from './callback-from';
import { presentedSession, sessionCookie } from './session-cookie';
import { SESSION_STRATEGY } from './session-cookie.strategy';

type WithUser = Request & { user?: SessionUser | null };

/**
 * Resolves the session cookie through passport. A cookie that resolves to nobody (forged,
 * unknown, expired) is cleared together with the page's `loggedIn` cookie, so the page
 * stops believing it is signed in.
 */
abstract class SessionGuard extends AuthGuard(SESSION_STRATEGY) {
  constructor(protected readonly config: GatewayConfig) {
    super();
  }

  /** A call ApiKeyGuard took with a key is its owner's already: no session to look for. */
  override canActivate(context: ExecutionContext) {
    if (apiKeyCallerOf(context.switchToHttp().getRequest<Request>())) return true;
    return super.canActivate(context);
  }

  override getAuthenticateOptions(): { session: false } {
    return { session: false };
  }

  protected signedIn(error: unknown, user: unknown, context: ExecutionContext): SessionUser | null {
    // An auth service that cannot answer is an error (503), never "signed out".
    if (error instanceof Error) throw error;
    if (error) throw new InternalServerErrorException();
    if (user) return user as SessionUser;
    const req = context.switchToHttp().getRequest<Request>();
    const cookies = req.cookies as Record<string, unknown> | undefined;
    if (
      presentedSession(req, this.config) !== undefined ||
      cookies?.[LOGGED_IN_COOKIE] !== undefined
    ) {
      const res = context.switchToHttp().getResponse<Response>();
      const options: CookieOptions = {
        path: '/',
        sameSite: 'lax',
        secure: secureCookies(this.config),
      };
      res.clearCookie(sessionCookie(this.config), { ...options, httpOnly: true });
      res.clearCookie(LOGGED_IN_COOKIE, options);
    }
    return null;
  }
}

/** Lets only signed-in users through; others get 401 with where to sign in. */
@Injectable()
export class SignedInGuard extends SessionGuard {
  constructor(@Inject(SERVICE_CONFIG) config: GatewayConfig) {
    super(config);
  }

  override handleRequest<TUser = SessionUser>(
    error: unknown,
    user: unknown,
    _info: unknown,
    context: ExecutionContext,
  ): TUser {
    const signedIn = this.signedIn(error, user, context);
    if (signedIn) return signedIn as TUser;
    const req = context.switchToHttp().getRequest<Request>();
    throw new UnauthorizedException({
      message: MESSAGES.unauthorized,
      callBack: signInLink(callbackFrom(req.header('referer'), this.config.PUBLIC_ORIGIN)),
    });
  }
}

/** Lets everyone through; signed-in users are known to the handler. */
@Injectable()
export class OptionalSessionGuard extends SessionGuard {
  constructor(@Inject(SERVICE_CONFIG) config: GatewayConfig) {
    super(config);
  }

  override handleRequest<TUser = SessionUser | null>(
    error: unknown,
    user: unknown,
    _info: unknown,
    context: ExecutionContext,
  ): TUser {
    return this.signedIn(error, user, context) as TUser;
  }
}

/** The signed-in user (or null behind OptionalSessionGuard). */
export const CurrentUser = createParamDecorator(
  (_: unknown, context: ExecutionContext): SessionUser | null =>
    context.switchToHttp().getRequest<WithUser>().user ?? null,
);
