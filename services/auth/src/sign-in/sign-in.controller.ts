import { Controller, Inject, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { safeReturnPath, signInApi, SIGN_IN_PATH, type SessionUser } from '@shortener/contracts';
import { fromOwnOrigin } from '@shortener/chassis';
import { Route, SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import { GOOGLE_VARIABLES, type AuthConfig } from '../config';
import {
  clearSessionCookies,
  presentedSessionIds,
  setSessionCookies,
} from '../sessions/session-cookies';
import { SessionsService } from '../sessions/sessions.service';
import { UsersService } from '../users/users.service';
import type { GoogleSignIn } from './google-sign-in';
import { localIdentity } from './local-sign-in';
import { localSignInPage, signInPage, signOutPage, type PageLink } from './sign-in-pages';

export const GOOGLE_SIGN_IN = Symbol('GOOGLE_SIGN_IN');

const MAX_CODE_LENGTH = 4096;
const HOME = { href: '/', label: 'Home' };
const TRY_AGAIN = { href: SIGN_IN_PATH, label: 'Sign in again' };
const SPELLED_DIFFERENTLY =
  'This name belongs to an account spelled differently. Type it exactly as that account spells it, or choose another name.';

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
 * turns Google's answer into a session and the two cookies (ending the session the browser
 * had), POST /logout from our own pages ends both. Reached through the gateway, which
 * forwards these paths unchanged.
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

  @Route(signInApi.signIn)
  async login(
    @Query('from') from: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    if (!this.google && this.config.localSignIn) {
      res.type('html').send(localSignInPage(safeReturnPath(from)));
      return;
    }
    if (!this.google) return this.notConfigured(res);
    const outcome = await this.google.start(req, safeReturnPath(from));
    if (outcome.kind === 'redirect') return res.redirect(302, outcome.url);
    this.logger.error({ outcome }, 'sign-in could not start');
    page(res, 500, 'Sign-in could not start', ['Something went wrong on our side.']);
  }

  @Route(signInApi.googleCallback)
  async callback(
    @Query('code') code: unknown,
    @Query('state') state: unknown,
    @Query('error') error: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    if (!this.google) return this.notConfigured(res);
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
        return this.signIn(req, res, () => this.users.upsert(outcome.identity), outcome.from);
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

  @Route(signInApi.localSignIn)
  async localSignIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    if (!this.config.localSignIn) {
      return page(res, 404, 'Local sign-in is off', ['This server signs in with Google.'], [HOME]);
    }
    // A form posted from another site must not sign this browser in (login CSRF).
    if (!fromOwnOrigin(req.headers, this.config.PUBLIC_ORIGIN)) {
      return page(res, 403, 'Sign-in refused', ['This form was sent from another site.'], [HOME]);
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const from = safeReturnPath(body['from']);
    const name = localIdentity(body['name']);
    if (!name.ok) {
      res.status(400).type('html').send(localSignInPage(from, name.message));
      return;
    }
    const identity = name.identity;
    return this.signIn(
      req,
      res,
      () => this.users.local(identity),
      from,
      () => res.status(409).type('html').send(localSignInPage(from, SPELLED_DIFFERENTLY)),
    );
  }

  /**
   * Signs no one out: a link, an image or a redirect on any site can make this request.
   * It answers a page whose button sends the POST that does.
   */
  @Route(signInApi.signOutPage)
  logoutPage(@Res() res: Response): void {
    res.setHeader('cache-control', 'no-store');
    res.type('html').send(signOutPage());
  }

  @Route(signInApi.signOut)
  async logout(@Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    if (!fromOwnOrigin(req.headers, this.config.PUBLIC_ORIGIN)) {
      return page(
        res,
        403,
        'Sign-out refused',
        ['This request was sent from another site.'],
        [HOME],
      );
    }
    try {
      await this.sessions.end(...presentedSessionIds(req));
    } catch (error) {
      // The cookies go anyway; the session row expires on its own.
      this.logger.warn({ err: String(error) }, 'session not ended in the database');
    }
    clearSessionCookies(res, this.config.secureCookies, req);
    res.redirect(302, '/');
  }

  /**
   * A new session for the user `find` names, replacing the one this browser had: a
   * session that signing in again leaves alive would outlast whoever used it before.
   * `refused` answers when `find` names no one.
   */
  private async signIn(
    req: Request,
    res: Response,
    find: () => Promise<SessionUser | null>,
    from: string,
    refused?: () => void,
  ): Promise<void> {
    try {
      const user = await find();
      if (!user) {
        refused?.();
        return;
      }
      await this.sessions.end(...presentedSessionIds(req));
      const session = await this.sessions.create(user.id);
      setSessionCookies(res, this.config.secureCookies, session);
      this.logger.info({ userId: user.id }, 'signed in');
      res.redirect(302, safeReturnPath(from));
    } catch (error) {
      this.logger.error({ err: String(error) }, 'session not created');
      page(res, 503, 'Sign-in is unavailable right now', ['Please try again in a moment.']);
    }
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
