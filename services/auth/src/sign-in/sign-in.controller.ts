import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { safeReturnPath, SESSION_COOKIE, SIGN_IN_PATH } from '@shortener/contracts';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis/nest';
import { CALLBACK_PATH, GOOGLE_VARIABLES, type AuthConfig } from '../config';
import { clearSessionCookies, setSessionCookies } from '../sessions/session-cookies';
import { SessionsService } from '../sessions/sessions.service';
import { UsersService } from '../users/users.service';
import type { GoogleSignIn } from './google-sign-in';
import { localIdentity } from './local-sign-in';
import { localSignInPage, signInPage, type PageLink } from './sign-in-pages';

export const GOOGLE_SIGN_IN = Symbol('GOOGLE_SIGN_IN');

const MAX_CODE_LENGTH = 4096;
const HOME = { href: '/', label: 'Home' };
const TRY_AGAIN = { href: SIGN_IN_PATH, label: 'Sign in again' };

function page(
  res: Response,
  status: number,
  title: string,
  lines: string[],
  links: PageLink[] = [TRY_AGAIN, HOME],
): void {
  res
    .status(status)
    .type('html')
    .send(signInPage(title, lines, links));
}

/**
 * The browser side of signing in and out: /login sends the browser to Google, the callback
 * turns Google's answer into a session and the two cookies, /logout ends both. Reached
 * through the gateway, which forwards these paths unchanged.
 */
@Controller()
export class SignInController {
  constructor(
    @Inject(GOOGLE_SIGN_IN) private readonly google: GoogleSignIn | null,
    @Inject(UsersService) private readonly users: UsersService,
    @Inject(SessionsService) private readonly sessions: SessionsService,
    @Inject(SERVICE_CONFIG) private readonly config: AuthConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Get('login')
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    if (!this.google && this.config.localSignIn) {
      res.type('html').send(localSignInPage(safeReturnPath(req.query['from'])));
      return;
    }
    if (!this.google) return this.notConfigured(res);
    const outcome = await this.google.start(req, safeReturnPath(req.query['from']));
    if (outcome.kind === 'redirect') return res.redirect(302, outcome.url);
    this.logger.error({ outcome }, 'sign-in could not start');
    page(res, 500, 'Sign-in could not start', ['Something went wrong on our side.']);
  }

  @Get(CALLBACK_PATH.slice(1))
  async callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    if (!this.google) return this.notConfigured(res);
    const { code, state, error } = req.query;
    if (error !== undefined) {
      // The user said no at the provider (or it refused): back where they were, signed out.
      const started = this.google.states.take(req, state);
      return res.redirect(302, started?.from ?? '/');
    }
    if (typeof code !== 'string' || code === '' || code.length > MAX_CODE_LENGTH) {
      this.google.states.take(req, state);
      return page(res, 400, 'Sign-in did not complete', [
        'The answer from Google carried no authorization code.',
      ]);
    }
    const outcome = await this.google.finish(req);
    switch (outcome.kind) {
      case 'signed-in':
        return this.signIn(res, outcome.identity, outcome.from);
      case 'refused':
        this.logger.warn({ reason: outcome.reason }, 'sign-in callback refused');
        return page(res, 400, 'Sign-in could not be verified', [
          'This sign-in was not started from this browser, was already used, or took longer than ten minutes.',
        ]);
      case 'failed':
        this.logger.warn({ err: outcome.error.message }, 'sign-in failed at the provider');
        return page(res, 502, 'Sign-in did not complete', [
          'Google did not confirm the sign-in. Please try again.',
        ]);
      case 'redirect':
        return page(res, 400, 'Sign-in did not complete', [
          'The answer from Google carried no authorization code.',
        ]);
    }
  }

  @Post('auth/local')
  async localSignIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    if (!this.config.localSignIn) {
      return page(res, 404, 'Local sign-in is off', ['This server signs in with Google.'], [HOME]);
    }
    // A form posted from another site must not sign this browser in (login CSRF).
    const origin = req.header('origin');
    if (origin !== undefined && origin !== new URL(this.config.PUBLIC_ORIGIN).origin) {
      return page(res, 403, 'Sign-in refused', ['This form was sent from another site.'], [HOME]);
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const from = safeReturnPath(body['from']);
    const name = localIdentity(body['name']);
    if (!name.ok) {
      res.status(400).type('html').send(localSignInPage(from, name.message));
      return;
    }
    return this.signIn(res, name.identity, from);
  }

  @Get('logout')
  logout(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.signOut(req, res);
  }

  @Post('logout')
  logoutByPost(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.signOut(req, res);
  }

  private async signIn(
    res: Response,
    identity: Parameters<UsersService['upsert']>[0],
    from: string,
  ): Promise<void> {
    try {
      const user = await this.users.upsert(identity);
      const session = await this.sessions.create(user.id);
      setSessionCookies(res, this.config.secureCookies, session);
      this.logger.info({ userId: user.id }, 'signed in');
      res.redirect(302, safeReturnPath(from));
    } catch (error) {
      this.logger.error({ err: String(error) }, 'session not created');
      page(res, 503, 'Sign-in is unavailable right now', ['Please try again in a moment.']);
    }
  }

  private async signOut(req: Request, res: Response): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    const cookies = req.cookies as Record<string, unknown> | undefined;
    try {
      await this.sessions.end(cookies?.[SESSION_COOKIE]);
    } catch (error) {
      // The cookies go anyway; the session row expires on its own.
      this.logger.warn({ err: String(error) }, 'session not ended in the database');
    }
    clearSessionCookies(res, this.config.secureCookies);
    res.redirect(302, '/');
  }

  private notConfigured(res: Response): void {
    page(
      res,
      503,
      'Google sign-in is not configured',
      [
        'This server has no Google OAuth client set up, so nobody can sign in yet.',
        `Set ${GOOGLE_VARIABLES.slice(0, 2).join(' and ')} (and, if needed, ${GOOGLE_VARIABLES.slice(2).join(', ')}) for the auth service, then restart it.`,
      ],
      [HOME],
    );
  }
}
