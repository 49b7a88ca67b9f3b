import { Global, Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import {
  UsedNonces,
  pathOf,
  REQUEST_ID_HEADER,
  requestIdFrom,
  type OpsRoutes,
  type ServiceMetrics,
} from '@shortener/chassis';
import { OPS_PATHS } from '@shortener/contracts';
import {
  LIFECYCLE,
  OPS_ROUTES,
  READINESS_CHECKS,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
  SERVICE_METRICS,
  USED_NONCES,
  type Lifecycle,
  type ReadinessChecks,
} from './tokens';

export interface ChassisOptions {
  service: string;
  config: object;
  logger: Logger;
  metrics: ServiceMetrics;
  lifecycle: Lifecycle;
  readiness: ReadinessChecks;
  ops: OpsRoutes;
}

/**
 * Global providers every Nest service shares: its validated config, its logger (request logs
 * carry the request id, taken from X-Request-ID or made here), metrics, lifecycle state and
 * the nonces of the internal tokens taken, the readiness checks and the ops routes.
 */
@Global()
@Module({})
export class ChassisModule {
  static forRoot(options: ChassisOptions): DynamicModule {
    return {
      module: ChassisModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            logger: options.logger,
            genReqId: (req, res) => {
              const id = requestIdFrom(req.headers);
              res.setHeader(REQUEST_ID_HEADER, id);
              return id;
            },
            autoLogging: { ignore: (req) => OPS_PATHS.has(pathOf(req.url ?? '')) },
            serializers: {
              // The path only: a query carries what must not be logged (the URL being
              // shortened, OAuth codes and states).
              req: (req: { id: unknown; method: string; url: string }) => ({
                id: req.id,
                method: req.method,
                url: pathOf(req.url),
              }),
              res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
            },
          },
        }),
      ],
      providers: [
        { provide: SERVICE_CONFIG, useValue: options.config },
        { provide: SERVICE_LOGGER, useValue: options.logger },
        { provide: SERVICE_METRICS, useValue: options.metrics },
        { provide: LIFECYCLE, useValue: options.lifecycle },
        { provide: USED_NONCES, useValue: new UsedNonces() },
        { provide: READINESS_CHECKS, useValue: options.readiness },
        { provide: OPS_ROUTES, useValue: options.ops },
      ],
      exports: [
        SERVICE_CONFIG,
        SERVICE_LOGGER,
        SERVICE_METRICS,
        LIFECYCLE,
        USED_NONCES,
        READINESS_CHECKS,
        OPS_ROUTES,
      ],
    };
  }
}
