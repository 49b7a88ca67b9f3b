import { Controller, Inject, NotFoundException, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { OpsRoutes } from '@shortener/chassis';
import { opsApi } from '@shortener/contracts';
import { Route } from './contract-route';
import { OPS_ROUTES } from './tokens';

/**
 * Every Nest service's ops routes (opsApi), registered by the chassis (startNestService) and
 * answered by the chassis's one implementation of them (opsRoutes, which the redirect's plain
 * server calls too): /healthz for anyone; /readyz and /metrics on the service's own port only
 * to a direct loopback peer and only without OPS_PORT (then the chassis serves them on the
 * ops port): anyone else gets the 404 of a route that is not there.
 */
@Controller()
export class OpsController {
  constructor(@Inject(OPS_ROUTES) private readonly ops: OpsRoutes) {}

  @Route(opsApi.health)
  health(@Req() req: Request, @Res() res: Response): void {
    this.answer(req, res);
  }

  @Route(opsApi.ready)
  ready(@Req() req: Request, @Res() res: Response): void {
    this.answer(req, res);
  }

  @Route(opsApi.metrics)
  metrics(@Req() req: Request, @Res() res: Response): void {
    this.answer(req, res);
  }

  private answer(req: Request, res: Response): void {
    if (!this.ops.handle(req, res)) {
      throw new NotFoundException(`Cannot ${req.method} ${req.originalUrl}`);
    }
  }
}
