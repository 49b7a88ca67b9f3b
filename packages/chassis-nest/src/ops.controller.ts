import {
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  NotFoundException,
  Req,
  Res,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  dependencyMetric,
  opsServedOnMainPort,
  type OpsConfig,
  throttledReadiness,
  type ThrottledReadiness,
  type ServiceMetrics,
} from '@shortener/chassis';
import {
  LIFECYCLE,
  READINESS_CHECKS,
  SERVICE_CONFIG,
  SERVICE_METRICS,
  type Lifecycle,
  type ReadinessChecks,
} from './tokens';

/**
 * Every Nest service's ops routes, registered by the chassis (startNestService).
 * /healthz (alive) for anyone; /readyz (dependencies answer) and Prometheus /metrics on the
 * service's own port only to a direct loopback peer and only without OPS_PORT (then the
 * chassis serves them on the ops port): anyone else gets the 404 of a route that is not there.
 */
@Controller()
export class OpsController {
  private readonly readiness: ThrottledReadiness;

  constructor(
    @Inject(READINESS_CHECKS) checks: ReadinessChecks,
    @Inject(SERVICE_METRICS) private readonly metrics: ServiceMetrics,
    @Inject(LIFECYCLE) private readonly lifecycle: Lifecycle,
    @Inject(SERVICE_CONFIG) private readonly config: OpsConfig,
  ) {
    // The list itself, not a copy: modules built after this controller add to it.
    this.readiness = throttledReadiness(checks.list, {
      onReport: dependencyMetric(metrics.registry),
    });
  }

  @Get('healthz')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Header('cache-control', 'no-store')
  async ready(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.refuseStrangers(req);
    const report = await this.readiness(this.lifecycle.shuttingDown);
    res.status(report.ready ? 200 : 503).json(report);
  }

  @Get('metrics')
  async metricsText(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.refuseStrangers(req);
    res.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }

  private refuseStrangers(req: Request): void {
    if (!opsServedOnMainPort(req, this.config)) {
      throw new NotFoundException(`Cannot ${req.method} ${req.originalUrl}`);
    }
  }
}
