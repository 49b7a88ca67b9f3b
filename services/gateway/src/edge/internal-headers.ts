import type { NextFunction, Request, Response } from 'express';

/** The headers services trust from each other (x-internal-token and any later one). */
const INTERNAL_PREFIX = 'x-internal-';

/**
 * A client never speaks for the gateway: whatever x-internal-* header it sends is dropped
 * before anything reads the request or passes it on to a service.
 */
export function stripInternalHeaders(req: Request, _res: Response, next: NextFunction): void {
  for (const name of Object.keys(req.headers)) {
    if (name.startsWith(INTERNAL_PREFIX)) delete req.headers[name];
  }
  next();
}
