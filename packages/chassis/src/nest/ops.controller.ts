import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { checkReadiness, type ReadinessCheck } from '../readiness';
import type { ServiceMetrics } from '../metrics';
import { LIFECYCLE, READINESS_CHECKS, SERVICE_METRICS, type Lifecycle } from './tokens';

/** /healthz (alive), /readyz (dependencies answer) and Prometheus /metrics. */
@Controller()
export class OpsController {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    @Inject(SERVICE_METRICS) private readonly metrics: ServiceMetrics,
    @Inject(LIFECYCLE) private readonly lifecycle: Lifecycle,
  ) {}

  @Get('healthz')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Header('cache-control', 'no-store')
  async ready(@Res() res: Response): Promise<void> {
    const report = await checkReadiness(this.checks, this.lifecycle.shuttingDown);
    res.status(report.ready ? 200 : 503).json(report);
  }

  @Get('metrics')
  async metricsText(@Res() res: Response): Promise<void> {
    res.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
