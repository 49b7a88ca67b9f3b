// The light core every service loads. Heavier adapters have their own entry points
// (@shortener/chassis/database, /redis, /kafka, /nest) so the redirect service never
// loads TypeORM or Nest.
export * from './config';
export * from './logger';
export * from './metrics';
export * from './readiness';
export * from './ops-http';
export * from './shutdown';
export * from './startup';
export * from './retry';
export * from './visit-bus';
export * from './internal-auth';
export * from './internal-client';
export * from './client-key';
