import 'reflect-metadata';
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger as NestPinoLogger } from 'nestjs-pino';
import type { Request, Response, NextFunction } from 'express';
import {
  createLogger,
  type Logger,
  createMetrics,
  type ServiceMetrics,
  opsRoutes,
  type OpsConfig,
  type ReadinessCheck,
  onShutdown,
  closingSteps,
  type Adapter,
} from '@shortener/chassis';
import { ChassisModule } from './chassis.module';
import { DEFAULT_BODY_LIMIT } from './request-body';
import { RequestBodyModule, type RequestBodies } from './request-body.module';
import { READINESS_CHECKS, type Lifecycle } from './tokens';

export interface NestServiceOptions<
  Config extends { PORT: number; HOST: string; LOG_LEVEL: string },
> {
  service: string;
  /** The validated configuration (from the environment in main.ts, from the embedded host). */
  config: Config;
  /** The service's logger; one is made from the config when not given. */
  logger?: Logger;
  /**
   * What the service talks to, built by the caller (see Adapter): closed at shutdown, after
   * the app has drained. Their readiness checks are the service module's to list.
   */
  adapters?: Record<string, Adapter<unknown>>;
  /** The service's root module, built from its config and adapters. */
  module: DynamicModule;
  /** Extra set-up of the Express app before it listens (global pipes, headers...). */
  configure?: (app: NestExpressApplication, config: Config) => void;
  /**
   * The request bodies the service reads, on every route (default: JSON up to 16 KB);
   * `false` when the service reads bodies on its own routes (the gateway, behind its rate
   * limit). No other body is parsed.
   */
  bodies?: Partial<RequestBodies> | false;
  /**
   * Hosted inside another process with other services (the embedded mode): the host handles
   * signals and calls `shutdown` itself, and a finished shutdown does not exit the process.
   */
  hosted?: boolean;
}

export interface RunningService {
  app: INestApplication;
  logger: Logger;
  metrics: ServiceMetrics;
  port: number;
  shutdown: (reason: string) => Promise<void>;
}

/**
 * Starts a Nest service the same way everywhere: JSON logs, ops routes, HTTP metrics, and a
 * SIGTERM path that stops taking requests, drains the ones in flight, then closes the
 * service's connections and adapters. A start-up failure rejects (see exitOnStartupError).
 */
export async function startNestService<
  Config extends { PORT: number; HOST: string; LOG_LEVEL: string },
>(options: NestServiceOptions<Config>): Promise<RunningService> {
  const { config } = options;
  const logger = options.logger ?? createLogger(options.service, config.LOG_LEVEL);
  const metrics = createMetrics(options.service);
  const stopping = new AbortController();
  const lifecycle: Lifecycle = { shuttingDown: false, stopping: stopping.signal };

  const bodies = options.bodies ?? {};
  const root: DynamicModule = {
    module: class ServiceRootModule {},
    imports: [
      ChassisModule.forRoot({ service: options.service, config, logger, metrics, lifecycle }),
      ...(bodies
        ? [RequestBodyModule.forRoot({ kinds: ['json'], limit: DEFAULT_BODY_LIMIT, ...bodies })]
        : []),
      options.module,
    ],
  };
  // Nest's own body parsers would run before every middleware (the rate limit, the
  // request log) and answer a bad body with 500: bodies are read by RequestBodyModule.
  const app = await NestFactory.create<NestExpressApplication>(root, {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(NestPinoLogger));
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use((req: Request, res: Response, next: NextFunction) => {
    const end = metrics.httpRequests.startTimer({ method: req.method });
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      end({ route, status: String(res.statusCode) });
    });
    next();
  });
  options.configure?.(app, config);

  await app.listen(config.PORT, config.HOST);
  const server: Server = app.getHttpServer();
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port: boundPort }, `${options.service} listening on port ${boundPort}`);
  // With OPS_PORT, /readyz and /metrics move to their own port (OpsController then
  // refuses them on this one).
  const opsConfig: OpsConfig = config;
  const ops = opsRoutes(
    options.service,
    {
      registry: metrics.registry,
      checks:
        opsConfig.OPS_PORT === undefined
          ? []
          : app.get<symbol, ReadinessCheck[]>(READINESS_CHECKS, { strict: false }),
      isShuttingDown: () => lifecycle.shuttingDown,
    },
    opsConfig,
    logger,
  );
  await ops.listen();

  const shutdown = onShutdown({
    logger,
    handleSignals: !options.hosted,
    ...(options.hosted ? { exit: () => undefined } : {}),
    steps: [
      {
        name: 'stop taking requests',
        run: async () => {
          lifecycle.shuttingDown = true;
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          stopping.abort();
          await closed;
        },
      },
      { name: 'close connections', run: () => app.close() },
      ...closingSteps(options.adapters ?? {}),
      // Last: readiness keeps saying "shutting down" while the rest drains.
      { name: 'close the ops port', run: () => ops.close() },
    ],
  });
  return { app, logger, metrics, port: boundPort, shutdown };
}
