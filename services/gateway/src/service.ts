import cookieParser from 'cookie-parser';
import {
  answerClientErrors,
  compileTrustedProxies,
  limitRequestTimes,
  serviceAlive,
  trustedProxies,
  brandedHostOf,
} from '@shortener/chassis';
import { nestService } from '@shortener/chassis-nest';
import { connectAdapters } from './adapters';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './config';
import { acceptedFromEdge, clientAddresses } from './edge/client-address';
import { stripInternalHeaders } from './edge/internal-headers';
import { securityHeaders, securityHeaderValues } from './edge/security-headers';
import { inFront, redirectFastPath } from './proxy/redirect-fast-path';

/** The gateway: the public origin, in front of the services and the web app. */
export const service = nestService({
  name: 'gateway',
  loadConfig: loadGatewayConfig,
  connectAdapters,
  module: (_config, adapters) => AppModule.forRoot(adapters),
  // The gateway serves without any one of its dependencies: rate limits count in memory
  // while Redis is away, live streams wait for it, and each route answers for its own
  // backend. So it is ready whenever it runs, and reports the rest.
  checks: (config) => [
    serviceAlive('auth', config.AUTH_URL),
    serviceAlive('links', config.LINKS_URL),
    serviceAlive('analytics', config.ANALYTICS_URL),
    serviceAlive('redirect', config.REDIRECT_URL),
  ],
  // Bodies are read per route, behind the rate limits (EdgeModule), or streamed on to a
  // service by the proxy.
  bodies: false,
  // The edge's way in on one machine (npm run stack's nginx), its X-Forwarded-For believed.
  unixSocket: (config) =>
    config.UNIX_SOCKET === undefined
      ? undefined
      : { path: config.UNIX_SOCKET, accepted: acceptedFromEdge },
  configure: (app, config, logger) => {
    const server = app.getHttpServer();
    const answerHeaders = securityHeaderValues(config.PUBLIC_ORIGIN);
    // The public origin where there is no nginx (npm start, --no-edge): requests sent
    // slowly are closed, and what Node refuses unread is answered as every error is.
    limitRequestTimes(server, config);
    answerClientErrors(server, answerHeaders);
    // /r/ goes to the redirect service before Express and Nest, as the Ingress does, and so
    // does every request for a host not ours (a branded domain), as the edge's default route.
    const fastPath = redirectFastPath({
      target: config.REDIRECT_URL,
      socketPath: config.REDIRECT_SOCKET,
      trustedProxies: config.TRUSTED_PROXIES,
      logger,
      answerHeaders,
      brandedHost: brandedHostOf([new URL(config.PUBLIC_ORIGIN).host, ...config.SHORT_LINK_HOSTS]),
    });
    inFront(server, fastPath);
    // Closed once the last client connection is (the shutdown drains them first).
    server.once('close', () => void fastPath.close());
    // X-Forwarded-For is believed only from the proxies named here, and from the edge's
    // socket: req.ip is the client's address so resolved; 'trust proxy' serves the rest
    // of Express (the protocol).
    const trust = compileTrustedProxies(config.TRUSTED_PROXIES);
    app.use(clientAddresses(trustedProxies(config.TRUSTED_PROXIES)));
    app.use(stripInternalHeaders);
    app.set('trust proxy', trust);
    app.use(securityHeaders(config.PUBLIC_ORIGIN));
    app.use(cookieParser());
  },
});
