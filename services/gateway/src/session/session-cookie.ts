import type { Request } from 'express';
import { sessionCookieName } from '@shortener/contracts';
import { secureCookies, type GatewayConfig } from '../config';

/** The session cookie's name here: `__Host-sid` when browsers reach us over https, else `sid`. */
export function sessionCookie(config: GatewayConfig): string {
  return sessionCookieName(secureCookies(config));
}

/** The session id the browser presents under that name (any other name is no session). */
export function presentedSession(req: Request, config: GatewayConfig): unknown {
  const cookies = req.cookies as Record<string, unknown> | undefined;
  return cookies?.[sessionCookie(config)];
}
