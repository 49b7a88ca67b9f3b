import cookieParser from 'cookie-parser';
import { compileTrustedProxies, createLogger, type Adapter, type Logger } from '@shortener/chassis';
import { startNestService, type RunningService } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import type { GatewayConfig } from './config';
import { stripInternalHeaders } from './edge/internal-headers';
import { securityHeaders, securityHeaderValues } from './edge/security-headers';
import type { RateLimiter } from './rate-limit/rate-limiter';
import { inFront, redirectFastPath } from './proxy/redirect-fast-path';
import type { LiveVisitFeed } from './stats/live-visits';

/**
 * What the gateway talks to beyond the services: where rate limits are counted, and the feed
 * of stored visits its live streams send on.
 */
export interface GatewayAdapters {
  rateLimits: Adapter<RateLimiter>;
  liveVisits: Adapter<LiveVisitFeed>;
}

export interface GatewayOptions {
  config: GatewayConfig;
  adapters: GatewayAdapters;
  logger?: Logger;
  /** Hosted in another process (the embedded mode), which handles signals and exit. */
  hosted?: boolean;
}

/** Starts the gateway: the public origin, in front of the services and the web app. */
export function startGateway({
  config,
  adapters,
  logger,
  hosted = false,
}: GatewayOptions): Promise<RunningService> {
  const log = logger ?? createLogger('gateway', config.LOG_LEVEL);
  return startNestService({
    service: 'gateway',
    config,
    logger: log,
    adapters: { ...adapters },
    module: AppModule.forRoot(config, adapters),
    // Bodies are read per route, behind the rate limits (EdgeModule), or streamed on to a
    // service by the proxy.
    bodies: false,
    configure: (app) => {
      // /r/ goes to the redirect service before Express and Nest, as the Ingress does.
      const server = app.getHttpServer();
      const fastPath = redirectFastPath({
        target: config.REDIRECT_URL,
        trustedProxies: config.TRUSTED_PROXIES,
        logger: log,
        answerHeaders: securityHeaderValues(config.PUBLIC_ORIGIN),
      });
      inFront(server, fastPath);
      // Closed once the last client connection is (the shutdown drains them first).
      server.once('close', () => void fastPath.close());
      app.use(stripInternalHeaders);
      // X-Forwarded-For is believed only from the proxies named here (req.ip resolves it).
      app.set('trust proxy', compileTrustedProxies(config.TRUSTED_PROXIES));
      app.use(securityHeaders(config.PUBLIC_ORIGIN));
      app.use(cookieParser());
    },
    hosted,
  });
}
