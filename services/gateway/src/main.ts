import cookieParser from 'cookie-parser';
import { compileTrustedProxies } from '@shortener/chassis';
import { startNestService, type RunningService } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './config';
import { stripInternalHeaders } from './edge/internal-headers';
import { securityHeaders } from './edge/security-headers';

/** Starts the gateway; `hosted` when another process (the embedded mode) hosts it. */
export function startGateway(hosted = false): Promise<RunningService> {
  return startNestService({
    service: 'gateway',
    loadConfig: () => loadGatewayConfig(),
    module: (config) => AppModule.forRoot(config),
    // Bodies are read per route, behind the rate limits (EdgeModule), or streamed on to a
    // service by the proxy.
    bodies: false,
    configure: (app, config) => {
      app.use(stripInternalHeaders);
      // X-Forwarded-For is believed only from the proxies named here (req.ip resolves it).
      app.set('trust proxy', compileTrustedProxies(config.TRUSTED_PROXIES));
      app.use(securityHeaders(config.PUBLIC_ORIGIN));
      app.use(cookieParser());
    },
    hosted,
  });
}

if (require.main === module) void startGateway();
