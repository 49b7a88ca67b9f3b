import 'reflect-metadata';
import type { Server } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { DynamicModule } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger as NestPinoLogger } from 'nestjs-pino';
import type { Request, Response, NextFunction } from 'express';
import {
  closingSteps,
  createMetrics,
  opsRoutes,
  readinessChecks,
  serve,
  type Adapters,
  type KeepAliveConfig,
  type Logger,
  type OpsConfig,
  type ReadinessCheck,
  type RunningService,
  type Service,
  type StartOptions,
} from '@shortener/chassis';
import { ChassisModule } from './chassis.module';
import { OpsController } from './ops.controller';
import { DEFAULT_BODY_LIMIT } from './request-body';
import { RequestBodyModule, type RequestBodies } from './request-body.module';
import { ReadinessChecks, type Lifecycle } from './tokens';

/** The variables the chassis reads to start a Nest service. */
type NestServiceConfig = { PORT: number; HOST: string; LOG_LEVEL: string } & KeepAliveConfig &
  OpsConfig;

/**
 * A Nest service as its index.ts defines it: its name, config loader and adapters (see
 * Service), and what the chassis needs to start it. The chassis adds the rest: logs,
 * metrics, the ops routes, /readyz (the adapters' checks, the service's own and its
 * database's), and the shutdown that drains, then closes the adapters.
 */
export interface NestServiceDefinition<
  Config extends NestServiceConfig,
  A extends Adapters<A>,
> extends Omit<Service<Config, A>, 'start'> {
  /** The service's root module, built from its config and adapters. */
  module: (config: Config, adapters: A) => DynamicModule;
  /** Readiness checks of its own beyond its adapters' and its database's (services it calls). */
  checks?: (config: Config) => ReadinessCheck[];
  /** Extra set-up of the Express app before it listens (global pipes, headers...). */
  configure?: (app: NestExpressApplication, config: Config, logger: Logger) => void;
  /**
   * A Unix socket the app also answers on (listenOnUnixSocket: its owner's alone), beside
   * its port and closed with it; each connection accepted there is first shown to
   * `accepted` (the gateway takes it for the edge's).
   */
  unixSocket?: (
    config: Config,
  ) => { path: string; accepted: (connection: Socket) => void } | undefined;
  /**
   * The request bodies the service reads, on every route (default: JSON up to 16 KB);
   * `false` when the service reads bodies on its own routes (the gateway, behind its rate
   * limit). No other body is parsed.
   */
  bodies?: Partial<RequestBodies> | false;
}

/** The Service a Nest service exports: its definition, started by startNestService. */
export function nestService<Config extends NestServiceConfig, A extends Adapters<A>>(
  definition: NestServiceDefinition<Config, A>,
): Service<Config, A> {
  return {
    name: definition.name,
    loadConfig: definition.loadConfig,
    ...(definition.connectAdapters ? { connectAdapters: definition.connectAdapters } : {}),
    start: (options) => startNestService(definition, options),
  };
}

/**
 * Starts a Nest service the same way everywhere: JSON logs, ops routes, HTTP metrics, and a
 * SIGTERM path that stops taking requests, drains the ones in flight, then closes the
 * service's connections and adapters. A start-up failure rejects (see exitOnStartupError).
 */
export async function startNestService<Config extends NestServiceConfig, A extends Adapters<A>>(
  definition: NestServiceDefinition<Config, A>,
  { config, adapters, logger, hosted }: StartOptions<Config, A>,
): Promise<RunningService> {
  const metrics = createMetrics(definition.name);
  const stopping = new AbortController();
  const lifecycle: Lifecycle = { shuttingDown: false, stopping: stopping.signal };
  const readiness = new ReadinessChecks(
    readinessChecks(definition.checks?.(config) ?? [], adapters),
  );

  // One implementation of the ops routes: OpsController delegates to it on the service's
  // port, and with OPS_PORT it answers /readyz and /metrics on its own port.
  const ops = opsRoutes(
    definition.name,
    {
      registry: metrics.registry,
      // The list itself, not a copy: modules built with the app add to it.
      checks: readiness.list,
      isShuttingDown: () => lifecycle.shuttingDown,
    },
    config,
    logger,
  );

  const bodies = definition.bodies ?? {};
  const root: DynamicModule = {
    module: class ServiceRootModule {},
    imports: [
      ChassisModule.forRoot({
        service: definition.name,
        config,
        logger,
        metrics,
        lifecycle,
        readiness,
        ops,
      }),
      ...(bodies
        ? [RequestBodyModule.forRoot({ kinds: ['json'], limit: DEFAULT_BODY_LIMIT, ...bodies })]
        : []),
      definition.module(config, adapters),
    ],
    controllers: [OpsController],
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
  definition.configure?.(app, config, logger);

  // Initialised before anything listens: a request on the Unix socket, bound first, finds
  // the routes.
  await app.init();
  const server: Server = app.getHttpServer();
  const unixSocket = definition.unixSocket?.(config);
  return serve({
    name: definition.name,
    server,
    // Its connections are handed to the HTTP server as its own (the 'connection' event Node
    // documents for this): one app, one configuration, on both.
    unixSocket: unixSocket && {
      path: unixSocket.path,
      server: createNetServer((connection) => {
        unixSocket.accepted(connection);
        server.emit('connection', connection);
      }),
    },
    config,
    logger,
    hosted,
    ops,
    listen: () => app.listen(config.PORT, config.HOST),
    abandon: () => app.close(),
    stopping: () => {
      lifecycle.shuttingDown = true;
      stopping.abort();
    },
    steps: [{ name: 'close connections', run: () => app.close() }, ...closingSteps(adapters)],
  });
}
