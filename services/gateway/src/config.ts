import { env, loadConfig } from '@shortener/chassis';

export const gatewayConfigShape = {
  /** The public port: the product's origin is http://localhost:PORT. */
  PORT: env.port(8080),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  /** Signs the internal calls to the services, which check it. */
  INTERNAL_API_SECRET: env.secret(),
  REDIS_URL: env.url(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
  AUTH_URL: env.url(['http', 'https'], 'http://127.0.0.1:7001'),
  LINKS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7002'),
  ANALYTICS_URL: env.url(['http', 'https'], 'http://127.0.0.1:7003'),
  REDIRECT_URL: env.url(['http', 'https'], 'http://127.0.0.1:7004'),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig('gateway', gatewayConfigShape, source);
