import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { publicApi, type PublicRoute } from '@shortener/contracts';
import { DEFAULT_BODY_LIMIT, readRequestBody, SERVICE_LOGGER } from '@shortener/chassis-nest';
import { routePattern } from './route-pattern';

type Reader = ReturnType<typeof readRequestBody>;

/** A call that reads a JSON body, and how it is read. */
interface BodyRoute {
  method: string;
  path: RegExp;
  read: Reader;
}

/**
 * Reads an /api call's body after its rate limit (413, 400, 415 answered here) and parses it as
 * JSON when the call's `publicApi` entry names a body; any other type counts as none.
 */
@Injectable()
export class ApiBodyMiddleware implements NestMiddleware {
  private readonly read: Reader;
  private readonly bodyRoutes: BodyRoute[];

  constructor(@Inject(SERVICE_LOGGER) logger: Logger) {
    this.read = readRequestBody({ kinds: ['any'], limit: DEFAULT_BODY_LIMIT, logger });
    this.bodyRoutes = (Object.values(publicApi) as PublicRoute[])
      .filter((route) => route.body !== undefined)
      .map((route) => ({
        method: route.method,
        path: routePattern(route),
        read: readRequestBody({
          kinds: ['json', 'any'],
          limit: route.bodyLimit ?? DEFAULT_BODY_LIMIT,
          logger,
        }),
      }));
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const path = req.originalUrl.split('?')[0] ?? '';
    const route = this.bodyRoutes.find(
      (candidate) => candidate.method === req.method && candidate.path.test(path),
    );
    if (!route) {
      this.read(req, res, next);
      return;
    }
    route.read(req, res, (error?: unknown) => {
      if (Buffer.isBuffer(req.body)) req.body = undefined;
      next(error);
    });
  }
}
