import { ForbiddenException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { fromOwnOrigin } from '@shortener/chassis';
import {
  API_DOCS_PATH,
  MESSAGES,
  publicApi,
  REQUESTED_WITH_HEADER,
  REQUESTED_WITH_VALUE,
} from '@shortener/contracts';
import { routePattern } from './route-pattern';

/** Documentation is browsed by navigation, which cannot send the header. */
const EXEMPT_PREFIX = API_DOCS_PATH;
/**
 * EventSource cannot send it either: the calls the contract marks `same-origin` (the live
 * stream) check where the request comes from.
 */
const SAME_ORIGIN_CALLS = Object.values(publicApi)
  .filter((entry) => 'csrf' in entry && entry.csrf === 'same-origin')
  .map(routePattern);

function isExempt(path: string): boolean {
  return path === EXEMPT_PREFIX || path.startsWith(`${EXEMPT_PREFIX}/`);
}

/**
 * Every /api call must carry X-Requested-With: XMLHttpRequest. A cross-site form or link
 * cannot set it, and a cross-site script cannot send it without a CORS preflight we never
 * grant: with SameSite cookies, the CSRF defence. API answers are never cached.
 */
export function requireRequestedWith(
  publicOrigin: string,
): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => checkRequestedWith(publicOrigin, req, res, next);
}

/** What a cross-site request to the live stream gets. */
export const NOT_THIS_SITE = 'Live visits are only for the pages of this site';

function checkRequestedWith(
  publicOrigin: string,
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  if (isExempt(req.path)) return next();
  res.setHeader('cache-control', 'no-store');
  if (SAME_ORIGIN_CALLS.some((call) => call.test(req.path))) {
    if (!fromOwnOrigin(req.headers, publicOrigin)) throw new ForbiddenException(NOT_THIS_SITE);
    return next();
  }
  // A call with Authorization is a script's, made with an API key and no cookie (ApiKeyGuard
  // refuses a key beside a session cookie, and on the calls that take none). A cross-site
  // form cannot send the header, nor a cross-site script without the preflight we never grant.
  if (req.headers.authorization !== undefined) return next();
  const value = req.header(REQUESTED_WITH_HEADER);
  // Thrown, not passed to next(): Nest turns what middleware throws into the error answer.
  if (value === undefined || value === '') {
    throw new ForbiddenException(MESSAGES.missingRequestedWith);
  }
  if (value.toLowerCase() !== REQUESTED_WITH_VALUE.toLowerCase()) {
    throw new ForbiddenException(
      `The ${REQUESTED_WITH_HEADER} header must be ${REQUESTED_WITH_VALUE}`,
    );
  }
  next();
}
