import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { DEFAULT_BODY_LIMIT, readRequestBody, SERVICE_LOGGER } from '@shortener/chassis-nest';

/**
 * Reads an /api call's body, after its rate limit: too large (413), undecodable (400) or
 * in an unknown encoding (415) is answered here. SPEC's calls carry no body: the bytes
 * are not used.
 */
@Injectable()
export class ApiBodyMiddleware implements NestMiddleware {
  private readonly read: ReturnType<typeof readRequestBody>;

  constructor(@Inject(SERVICE_LOGGER) logger: Logger) {
    this.read = readRequestBody({ kinds: ['any'], limit: DEFAULT_BODY_LIMIT, logger });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    this.read(req, res, next);
  }
}
