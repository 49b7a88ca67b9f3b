import { ForbiddenException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { MESSAGES, REQUESTED_WITH_HEADER, REQUESTED_WITH_VALUE } from '@shortener/contracts';

/** Documentation is browsed by navigation, which cannot send the header. */
const EXEMPT_PREFIX = '/api/docs';

function isExempt(path: string): boolean {
  return path === EXEMPT_PREFIX || path.startsWith(`${EXEMPT_PREFIX}/`);
}

/**
 * Every /api call must carry X-Requested-With: XMLHttpRequest. A cross-site form or link
 * cannot set it, and a cross-site script cannot send it without a CORS preflight we never
 * grant: with SameSite cookies, the CSRF defence. API answers are never cached.
 */
export function requireRequestedWith(req: Request, res: Response, next: NextFunction): void {
  if (isExempt(req.path)) return next();
  res.setHeader('cache-control', 'no-store');
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
