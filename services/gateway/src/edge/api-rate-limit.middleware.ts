import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { clientKey } from './client-address';

/** Every /api call counts against its client address. */
@Injectable()
export class ApiRateLimitMiddleware implements NestMiddleware {
  constructor(@Inject(RateLimitService) private readonly limits: RateLimitService) {}

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    await this.limits.enforce('api', clientKey(req), res);
    next();
  }
}
